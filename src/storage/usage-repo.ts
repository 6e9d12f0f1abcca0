// Reads spent per platform per UTC day, kept in the store: every tracker process reserves from the
// same row, so together they never exceed the day's budget, and a restart does not reset it.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** UTC day of an epoch-ms time, as YYYY-MM-DD. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export async function readsOn(db: Db, platform: string, day: string): Promise<number> {
  const row = await db.selectFrom('platform_usage').select('reads').where('platform', '=', platform).where('day', '=', day).executeTakeFirst();
  return row ? Number(row.reads) : 0;
}

/**
 * Takes up to `wanted` reads of the day's `limit`, atomically against other processes: the update
 * only applies while the grant still fits under the limit (checked again under the row lock).
 * Returns how many were granted: 0 when the day is spent.
 */
export async function reserveReads(db: Db, platform: string, day: string, wanted: number, limit: number): Promise<number> {
  await db.insertInto('platform_usage').values({ platform, day, reads: 0 }).onConflict((oc) => oc.columns(['platform', 'day']).doNothing()).execute();
  for (let attempt = 0; attempt < 10; attempt++) {
    const used = await readsOn(db, platform, day);
    const grant = Math.min(wanted, limit - used);
    if (grant <= 0) return 0;
    const result = await db
      .updateTable('platform_usage')
      .set({ reads: sql`reads + ${grant}` })
      .where('platform', '=', platform)
      .where('day', '=', day)
      .where(sql<boolean>`reads + ${grant} <= ${limit}`)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) return grant;
    // Someone took part of what we saw left: look again.
  }
  return 0;
}

/** Corrects a reservation by what the request really read (`delta` = read − reserved, often negative). */
export async function adjustReads(db: Db, platform: string, day: string, delta: number): Promise<void> {
  if (delta === 0) return;
  await db.updateTable('platform_usage').set({ reads: sql`reads + ${delta}` }).where('platform', '=', platform).where('day', '=', day).execute();
}
