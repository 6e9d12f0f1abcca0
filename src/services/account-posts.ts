// One account's stored posts as a use case: newest first, paged by [created_at, post_id].
import { findAccountRowId } from '../storage/accounts-repo.ts';
import { parseHistory, type CheckpointAge } from '../domain/post-history.ts';
import { parseJson, parseStrings } from '../storage/json-column.ts';
import { listPosts, type PostRow } from '../storage/posts-repo.ts';
import { notTracked, type NamedRef } from './account-refs.ts';
import type { ServiceDeps } from './context.ts';

export interface PostView {
  id: string;
  createdAt: string;
  text: string;
  url: string | null;
  lang: string | null;
  sentiment: number | null;
  isRepost: boolean;
  isReply: boolean;
  metrics: { likes: number; reposts: number; replies: number; quotes: number };
  /** When `metrics` were last read from the platform (first read or refresh). */
  metricsObservedAt: string;
  status: 'live' | 'deleted' | 'hidden';
  statusSince: string | null;
  metricsHistory: {
    age: CheckpointAge;
    observedAt: string;
    likes: number;
    reposts: number;
    replies: number;
    quotes: number;
  }[];
  hashtags: string[];
  mentions: string[];
  domains: string[];
}

const statusOf = (status: string): PostView['status'] =>
  status === 'deleted' || status === 'hidden' ? status : 'live';

const toPost = (row: PostRow): PostView => ({
  id: row.post_id,
  createdAt: new Date(row.created_at).toISOString(),
  text: row.text,
  url: row.url,
  lang: row.lang,
  sentiment: row.sentiment,
  isRepost: Boolean(row.is_repost),
  isReply: Boolean(row.is_reply),
  metrics: { likes: row.likes, reposts: row.reposts, replies: row.replies, quotes: row.quotes },
  metricsObservedAt: new Date(row.metrics_observed_at).toISOString(),
  status: statusOf(row.status),
  statusSince: row.status_at === null ? null : new Date(row.status_at).toISOString(),
  metricsHistory: parseHistory(parseJson<unknown>(row.metrics_history, [])).map((sample) => ({
    ...sample,
    observedAt: new Date(sample.observedAt).toISOString(),
  })),
  hashtags: parseStrings(row.hashtags),
  mentions: parseStrings(row.mentions),
  domains: parseStrings(row.domains),
});

/** A page of posts; `last` is the position the next page starts after. */
export async function listAccountPosts(
  deps: ServiceDeps,
  ref: NamedRef,
  limit: number,
  before?: readonly [number, string],
): Promise<{ data: PostView[]; more: boolean; last: [number, string] | null }> {
  const accountId = await findAccountRowId(deps.store.reader, ref);
  if (accountId === null) throw notTracked(ref.name);
  const page = await listPosts(deps.store.reader, accountId, limit, before);
  const tail = page.rows.at(-1);
  return { data: page.rows.map(toPost), more: page.more, last: tail ? [tail.created_at, tail.post_id] : null };
}
