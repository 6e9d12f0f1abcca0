// Budget meters in the store: one row per meter and period (a UTC day or month), counting what is
// spent against it. Every tracker process reserves from the same row, so together they never
// exceed the budget, and a restart does not reset it. A meter counts in its own unit (reads,
// posts, micro-dollars); `platform` names the meter (`x` for X's reads, `x:usd`, `x:posts`) and
// `day` its period (YYYY-MM-DD or YYYY-MM).
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/**
 * Takes up to `wanted` units of the period's `limit` in one statement: an upsert whose update computes
 * the grant from the row as it is under the row lock (SQLite and PostgreSQL both evaluate every SET
 * expression against the old row), so processes reserving at once never overspend. The grant is
 * kept in `last_grant` so that RETURNING can report it. Returns the grant (0 when the period is spent)
 * and the period's count, this grant included.
 */
export async function reserveReads(
  db: Db,
  meter: string,
  period: string,
  wanted: number,
  limit: number,
): Promise<{ granted: number; used: number }> {
  const first = Math.max(0, Math.min(wanted, limit));
  const grant = sql<number>`case when platform_usage.reads >= ${limit} then 0 when ${limit} - platform_usage.reads < ${wanted} then ${limit} - platform_usage.reads else ${wanted} end`;
  const row = await db
    .insertInto('platform_usage')
    .values({ platform: meter, day: period, reads: first, last_grant: first })
    .onConflict((oc) =>
      oc
        .columns(['platform', 'day'])
        .doUpdateSet({ reads: sql<number>`platform_usage.reads + ${grant}`, last_grant: grant }),
    )
    .returning(['reads', 'last_grant'])
    .executeTakeFirstOrThrow();
  return { granted: Number(row.last_grant), used: Number(row.reads) };
}

export interface MeterDelta {
  meter: string;
  period: string;
  /** Units to add (often negative: a reservation settled with less than it took). */
  delta: number;
}

/** Applies several corrections in one statement; returns each touched row's count by `meter@period`. */
export async function adjustMeters(db: Db, deltas: readonly MeterDelta[]): Promise<Map<string, number>> {
  const changed = deltas.filter((d) => d.delta !== 0);
  const counts = new Map<string, number>();
  if (changed.length === 0) return counts;
  const rows = await db
    .insertInto('platform_usage')
    .values(changed.map((d) => ({ platform: d.meter, day: d.period, reads: d.delta, last_grant: 0 })))
    .onConflict((oc) =>
      oc.columns(['platform', 'day']).doUpdateSet({ reads: sql<number>`platform_usage.reads + excluded.reads` }),
    )
    .returning(['platform', 'day', 'reads'])
    .execute();
  for (const row of rows) counts.set(`${row.platform}@${row.day}`, Number(row.reads));
  return counts;
}

/** The count of each meter in `periods` (absent: nothing spent). */
export async function meterCounts(
  db: Db,
  meters: readonly string[],
  periods: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (meters.length === 0 || periods.length === 0) return counts;
  const rows = await db
    .selectFrom('platform_usage')
    .select(['platform', 'day', 'reads'])
    .where('platform', 'in', [...meters])
    .where('day', 'in', [...periods])
    .execute();
  for (const row of rows) counts.set(`${row.platform}@${row.day}`, Number(row.reads));
  return counts;
}
