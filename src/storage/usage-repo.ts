// Reads spent per platform per UTC day, kept in the store: every tracker process reserves from the
// same row, so together they never exceed the day's budget, and a restart does not reset it.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** UTC day of an epoch-ms time, as YYYY-MM-DD. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Takes up to `wanted` reads of the day's `limit` in one statement: an upsert whose update computes
 * the grant from the row as it is under the row lock (SQLite and PostgreSQL both evaluate every SET
 * expression against the old row), so processes reserving at once never overspend. The grant is
 * kept in `last_grant` so that RETURNING can report it. Returns the grant (0 when the day is spent)
 * and the day's count, this grant included.
 */
export async function reserveReads(
  db: Db,
  platform: string,
  day: string,
  wanted: number,
  limit: number,
): Promise<{ granted: number; used: number }> {
  const first = Math.max(0, Math.min(wanted, limit));
  const grant = sql<number>`case when platform_usage.reads >= ${limit} then 0 when ${limit} - platform_usage.reads < ${wanted} then ${limit} - platform_usage.reads else ${wanted} end`;
  const row = await db
    .insertInto('platform_usage')
    .values({ platform, day, reads: first, last_grant: first })
    .onConflict((oc) =>
      oc
        .columns(['platform', 'day'])
        .doUpdateSet({ reads: sql<number>`platform_usage.reads + ${grant}`, last_grant: grant }),
    )
    .returning(['reads', 'last_grant'])
    .executeTakeFirstOrThrow();
  return { granted: Number(row.last_grant), used: Number(row.reads) };
}

/**
 * Corrects a reservation by what the request really read (`delta` = read − reserved, often
 * negative) and returns the day's count, or null when nothing had to change.
 */
export async function adjustReads(db: Db, platform: string, day: string, delta: number): Promise<number | null> {
  if (delta === 0) return null;
  const row = await db
    .updateTable('platform_usage')
    .set({ reads: sql`reads + ${delta}` })
    .where('platform', '=', platform)
    .where('day', '=', day)
    .returning('reads')
    .executeTakeFirst();
  return row ? Number(row.reads) : null;
}
