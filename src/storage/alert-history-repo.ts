// The snapshots an alert window compares with: for each account, the latest observation in a short
// span just before the window's start. Reads only that span of the (account, bucket) key, and only
// the columns a rule can watch, so a window costs a few index entries per account however long it is.
import type { Kysely } from 'kysely';
import { padded, runByShape } from './prepared.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
type Row = { account_id: number; observed_at: number; followers: number; following: number; posts: number };

export interface BaselineSnapshot {
  observedAt: number;
  followers: number;
  following: number;
  posts: number;
}

/**
 * The latest snapshot of each account observed in `[from, to]`. A snapshot's bucket is the start of
 * the `bucketMs` bucket its observation fell in, so only buckets from `from - bucketMs` are read.
 */
export async function latestSnapshotsIn(
  db: Db,
  accountIds: readonly number[],
  from: number,
  to: number,
  bucketMs: number,
): Promise<Map<number, BaselineSnapshot>> {
  const latest = new Map<number, BaselineSnapshot>();
  if (accountIds.length === 0) return latest;
  const ids = padded(accountIds);
  const { rows } = await runByShape<Row>(db, `alert-window:${ids.length}`, [from - bucketMs, from, to, ...ids], (a) => {
    const [firstBucket, start, end, ...list] = a as number[];
    return db
      .selectFrom('metric_snapshots')
      .select(['account_id', 'observed_at', 'followers', 'following', 'posts'])
      .where('account_id', 'in', list)
      .where('bucket', '>=', firstBucket ?? 0)
      .where('bucket', '<=', end ?? 0)
      .where('observed_at', '>=', start ?? 0)
      .where('observed_at', '<=', end ?? 0);
  });
  for (const row of rows) {
    const id = Number(row.account_id);
    const observedAt = Number(row.observed_at);
    const known = latest.get(id);
    if (known && known.observedAt >= observedAt) continue;
    latest.set(id, {
      observedAt,
      followers: Number(row.followers),
      following: Number(row.following),
      posts: Number(row.posts),
    });
  }
  return latest;
}
