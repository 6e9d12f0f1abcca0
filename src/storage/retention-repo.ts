// Deletes rows older than their table's retention, a small batch at a time, so pruning never
// holds SQLite's writer (or a PostgreSQL lock) for long. Each retained table is one line below.
import { sql, type Kysely } from 'kysely';
import type { RetainedTable } from '../config.ts';
import type { Database } from './schema.ts';

interface Retained {
  table: keyof Database;
  /** Epoch-ms column the age is read from; it has an index (migration 004), so a batch never scans. */
  time: string;
}

export const RETAINED: Record<RetainedTable, Retained> = {
  history: { table: 'metric_snapshots', time: 'bucket' },
  audit: { table: 'audit_log', time: 'at' },
  imports: { table: 'imports', time: 'created_at' },
  idempotency: { table: 'idempotency_keys', time: 'created_at' },
};

/**
 * Deletes up to about `batch` rows of `what` older than `before`; returns how many went. Rows are
 * taken oldest first, up to the time of the `batch`-th oldest (rows sharing that time go together,
 * which both dialects can do without a row id).
 */
export async function pruneOlderThan(
  db: Kysely<Database>,
  what: Retained,
  before: number,
  batch: number,
): Promise<number> {
  const table = sql.table(what.table);
  const time = sql.ref(what.time);
  const edge = await sql<{
    t: number;
  }>`select ${time} as t from ${table} where ${time} < ${before} order by ${time} limit 1 offset ${batch - 1}`.execute(
    db,
  );
  const upTo = edge.rows[0] === undefined ? sql`${time} < ${before}` : sql`${time} <= ${Number(edge.rows[0].t)}`;
  const result = await sql`delete from ${table} where ${upTo}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
