// The snapshots an alert window compares with: for each account, the latest observation in a short
// span just before the window's start. Reads only that span of the (account, bucket) key, and only
// the columns a rule can watch, so a window costs a few index entries per account however long it is.
import { sql, type Kysely } from 'kysely';
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
 * the `bucketMs` bucket its observation fell in, so only buckets from `from - bucketMs` are read,
 * newest first: one row per (account, bucket) makes the newest bucket the latest observation, so
 * each account costs one step back through its key (to the first bucket observed by `to`) and one
 * row, not every row of the span.
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
  const ids = padded([...new Set(accountIds)]);
  const { rows } = await runByShape<Row>(db, `alert-window:${ids.length}`, [from - bucketMs, from, to, ...ids], (a) => {
    const [firstBucket, start, end, ...list] = a as number[];
    const query = sql<Row>`with ids (id) as (values ${sql.join(list.map((id) => sql`(cast(${id} as bigint))`))})
      select s.account_id, s.observed_at, s.followers, s.following, s.posts
      from ids join metric_snapshots s on s.account_id = ids.id and s.bucket = (
        select m.bucket from metric_snapshots m
        where m.account_id = ids.id and m.bucket >= ${firstBucket} and m.bucket <= ${end}
          and m.observed_at >= ${start} and m.observed_at <= ${end}
        order by m.bucket desc limit 1)`;
    return { compile: () => query.compile(db) };
  });
  for (const row of rows)
    latest.set(Number(row.account_id), {
      observedAt: Number(row.observed_at),
      followers: Number(row.followers),
      following: Number(row.following),
      posts: Number(row.posts),
    });
  return latest;
}
