// One account's metrics history as a use case: a page of snapshots, or the rows of a CSV export
// read in chunks so a large export never holds the store in one statement.
import type { MetricSnapshot } from '../domain/account.ts';
import { findAccount, findAccountRowId } from '../storage/accounts-repo.ts';
import { listHistory } from '../storage/history-repo.ts';
import { notTracked, type NamedRef } from './account-refs.ts';
import type { ServiceDeps } from './context.ts';

export interface HistoryPoint {
  /** When the metrics were observed (epoch ms). */
  observedAt: number;
  /** The history bucket the point fills; pages continue after it. */
  bucket: number;
  followers: number;
  following: number;
  posts: number;
  listed: number | null;
}

export interface HistoryRange {
  from?: number;
  to?: number;
  /** Bucket after which the page starts. */
  after?: number;
}

const pointOf = (s: MetricSnapshot): HistoryPoint => ({
  observedAt: s.observedAt,
  bucket: s.bucket,
  followers: s.followers,
  following: s.following,
  posts: s.posts,
  listed: s.listed,
});

async function rowIdOf(deps: ServiceDeps, ref: NamedRef): Promise<number> {
  const id = await findAccountRowId(deps.store.reader, ref);
  if (id === null) throw notTracked(ref.name);
  return id;
}

/** Up to `limit` points, oldest first. */
export async function historyPage(
  deps: ServiceDeps,
  ref: NamedRef,
  range: HistoryRange,
  limit: number,
): Promise<{ points: HistoryPoint[]; more: boolean }> {
  const accountId = await rowIdOf(deps, ref);
  const page = await listHistory(deps.store.reader, accountId, { ...range, limit });
  return { points: page.snapshots.map(pointOf), more: page.more };
}

export interface HistoryExport {
  platform: string;
  username: string;
  displayName: string | null;
  points: HistoryPoint[];
  /** More points follow the last one in the range. */
  more: boolean;
}

/** Up to `limit` points for one file, read `chunk` rows per query, with the names each row shows. */
export async function historyExport(
  deps: ServiceDeps,
  ref: NamedRef,
  range: HistoryRange,
  limit: number,
  chunk: number,
): Promise<HistoryExport> {
  const { reader } = deps.store;
  const accountId = await rowIdOf(deps, ref);
  const account = await findAccount(reader, ref);
  if (!account) throw notTracked(ref.name);
  const points: HistoryPoint[] = [];
  let after = range.after;
  let more = false;
  while (points.length < limit) {
    const page = await listHistory(reader, accountId, {
      ...range,
      ...(after !== undefined ? { after } : {}),
      limit: Math.min(chunk, limit - points.length),
    });
    points.push(...page.snapshots.map(pointOf));
    after = page.snapshots.at(-1)?.bucket ?? after;
    more = page.more;
    if (!page.more) break;
  }
  return {
    platform: account.platform,
    username: account.username,
    displayName: account.profile?.displayName ?? null,
    points,
    more,
  };
}
