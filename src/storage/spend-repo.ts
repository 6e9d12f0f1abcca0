// The spend ledger: what each platform returned per UTC day and kind of resource (after X's
// same-day deduplication) and what it cost. Written after every request, read by health, metrics
// and the usage report.
import { sql, type Kysely } from 'kysely';
import type { Platform } from '../domain/platforms.ts';
import type { ResourceKind, SpendRow } from '../domain/spend.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Adds one request's billed resources to its day's row (one statement). */
export async function recordSpend(db: Db, row: SpendRow): Promise<void> {
  if (row.resources === 0 && row.micros === 0) return;
  await db
    .insertInto('spend_ledger')
    .values({ platform: row.platform, day: row.day, kind: row.kind, resources: row.resources, micros: row.micros })
    .onConflict((oc) =>
      oc.columns(['platform', 'day', 'kind']).doUpdateSet({
        resources: sql<number>`spend_ledger.resources + excluded.resources`,
        micros: sql<number>`spend_ledger.micros + excluded.micros`,
      }),
    )
    .execute();
}

/** Ledger rows of the days from `from` to `to` (inclusive, YYYY-MM-DD), oldest first. */
export async function spendRows(
  db: Db,
  range: { from: string; to: string; platform?: Platform | undefined },
): Promise<SpendRow[]> {
  let query = db
    .selectFrom('spend_ledger')
    .selectAll()
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .orderBy('day')
    .orderBy('platform')
    .orderBy('kind');
  if (range.platform) query = query.where('platform', '=', range.platform);
  const rows = await query.execute();
  return rows.map((r) => ({
    day: r.day,
    platform: r.platform as Platform,
    kind: r.kind as ResourceKind,
    resources: Number(r.resources),
    micros: Number(r.micros),
  }));
}

/** The first day the ledger holds for a platform, or null. */
export async function firstSpendDay(db: Db, platform: Platform): Promise<string | null> {
  const row = await db
    .selectFrom('spend_ledger')
    .select((eb) => eb.fn.min('day').as('day'))
    .where('platform', '=', platform)
    .executeTakeFirst();
  return row?.day ?? null;
}
