// Reads spent per platform per UTC day, kept in the store so a restart does not reset the budget.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** UTC day of an epoch-ms time, as YYYY-MM-DD. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export async function addReads(db: Db, platform: string, day: string, reads: number): Promise<void> {
  if (reads <= 0) return;
  await db
    .insertInto('platform_usage')
    .values({ platform, day, reads })
    .onConflict((oc) => oc.columns(['platform', 'day']).doUpdateSet({ reads: sql`platform_usage.reads + excluded.reads` }))
    .execute();
}

export async function readsOn(db: Db, platform: string, day: string): Promise<number> {
  const row = await db.selectFrom('platform_usage').select('reads').where('platform', '=', platform).where('day', '=', day).executeTakeFirst();
  return row ? Number(row.reads) : 0;
}
