// Metric snapshots: one row per account per time bucket (a later check in the bucket replaces it),
// which bounds history growth whatever the check interval.
import type { Kysely, Selectable } from 'kysely';
import type { MetricSnapshot } from '../domain/account.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import type { Database, MetricSnapshotsTable } from './schema.ts';

type Db = Kysely<Database>;

const toRow = (s: MetricSnapshot): MetricSnapshotsTable => ({
  account_id: s.accountId,
  bucket: s.bucket,
  observed_at: s.observedAt,
  followers: s.followers,
  following: s.following,
  posts: s.posts,
  listed: s.listed,
});

const toSnapshot = (row: Selectable<MetricSnapshotsTable>): MetricSnapshot => ({
  accountId: Number(row.account_id),
  bucket: Number(row.bucket),
  observedAt: Number(row.observed_at),
  followers: Number(row.followers),
  following: Number(row.following),
  posts: Number(row.posts),
  listed: row.listed === null ? null : Number(row.listed),
});

export async function upsertSnapshots(
  db: Db,
  caps: DialectCapabilities,
  snapshots: readonly MetricSnapshot[],
): Promise<void> {
  const perRow = 7;
  const chunk = Math.max(1, Math.floor(caps.maxParameters / perRow));
  for (let i = 0; i < snapshots.length; i += chunk) {
    await db
      .insertInto('metric_snapshots')
      .values(snapshots.slice(i, i + chunk).map(toRow))
      .onConflict((oc) =>
        oc.columns(['account_id', 'bucket']).doUpdateSet((eb) => ({
          observed_at: eb.ref('excluded.observed_at'),
          followers: eb.ref('excluded.followers'),
          following: eb.ref('excluded.following'),
          posts: eb.ref('excluded.posts'),
          listed: eb.ref('excluded.listed'),
        })),
      )
      .execute();
  }
}

export interface HistoryQuery {
  from?: number;
  to?: number;
  /** Bucket after which the page starts (ascending order). */
  after?: number;
  limit: number;
}

/** Snapshots of one account, oldest first, one page at a time. */
export async function listHistory(
  db: Db,
  accountId: number,
  query: HistoryQuery,
): Promise<{ snapshots: MetricSnapshot[]; more: boolean }> {
  let select = db.selectFrom('metric_snapshots').selectAll().where('account_id', '=', accountId);
  if (query.from !== undefined) select = select.where('observed_at', '>=', query.from);
  if (query.to !== undefined) select = select.where('observed_at', '<=', query.to);
  if (query.after !== undefined) select = select.where('bucket', '>', query.after);
  const rows = await select
    .orderBy('bucket')
    .limit(query.limit + 1)
    .execute();
  const more = rows.length > query.limit;
  return { snapshots: (more ? rows.slice(0, query.limit) : rows).map(toSnapshot), more };
}

/** The snapshots of several accounts observed from `from` to `to`, per account, oldest first. */
export async function snapshotsSince(
  db: Db,
  accountIds: readonly number[],
  from: number,
  to = Number.MAX_SAFE_INTEGER,
): Promise<Map<number, MetricSnapshot[]>> {
  const byAccount = new Map<number, MetricSnapshot[]>();
  if (accountIds.length === 0) return byAccount;
  const rows = await db
    .selectFrom('metric_snapshots')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('bucket', '>=', from - 86_400_000)
    .where('bucket', '<=', to)
    .where('observed_at', '>=', from)
    .where('observed_at', '<=', to)
    .orderBy('account_id')
    .orderBy('bucket')
    .execute();
  for (const row of rows) {
    const snapshot = toSnapshot(row);
    const list = byAccount.get(snapshot.accountId) ?? [];
    list.push(snapshot);
    byAccount.set(snapshot.accountId, list);
  }
  return byAccount;
}
