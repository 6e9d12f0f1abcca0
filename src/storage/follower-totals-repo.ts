// Total followers of the tracked accounts per UTC day, for all of them ('') and per tag: the
// Overview's followers-over-time chart. Every writer that changes an account's followers, tags or
// tracking adds its change through CountChanges (account-counts-repo.ts), in its own transaction.
// A day's row starts from the last total before it, so a day without a row kept the day before's.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

const DAY_MS = 86_400_000;

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Adds each tag's change to its total of the day of `now`, in tag order (concurrent writers wait, never deadlock). */
export async function applyFollowerTotals(
  db: Db,
  rows: readonly { tag: string; n: number }[],
  now: number,
): Promise<void> {
  const day = utcDay(now);
  for (const { tag, n } of rows) {
    await sql`insert into follower_totals (tag, day, total)
      values (${tag}, ${day}, coalesce((select t.total from follower_totals t where t.tag = ${tag} and t.day < ${day}
        order by t.day desc limit 1), 0) + ${n})
      on conflict (tag, day) do update set total = follower_totals.total + ${n}`.execute(db);
  }
}

export interface TotalPoint {
  /** Midnight UTC of the day, in ms. */
  at: number;
  total: number;
}

/**
 * The totals of `tag` per day from the day of `from` to today: the total standing at `from` (the
 * last row before it) first, then every day that changed. Empty when nothing was ever counted.
 */
export async function followerTotalsSince(db: Db, tag: string, from: number): Promise<TotalPoint[]> {
  const fromDay = utcDay(from);
  const before = await db
    .selectFrom('follower_totals')
    .select(['day', 'total'])
    .where('tag', '=', tag)
    .where('day', '<', fromDay)
    .orderBy('day', 'desc')
    .limit(1)
    .executeTakeFirst();
  const rows = await db
    .selectFrom('follower_totals')
    .select(['day', 'total'])
    .where('tag', '=', tag)
    .where('day', '>=', fromDay)
    .orderBy('day')
    .execute();
  const points = rows.map((r) => ({ at: Date.parse(`${r.day}T00:00:00Z`), total: Number(r.total) }));
  const start = Date.parse(`${fromDay}T00:00:00Z`);
  if (before && points[0]?.at !== start) points.unshift({ at: start, total: Number(before.total) });
  return points;
}

/** The span of days the chart shows for a window: `days` days ending today. */
export const windowStart = (now: number, days: number): number => now - (days - 1) * DAY_MS;
