// Deletes rows older than their table's retention, a small batch at a time, so pruning never
// holds SQLite's writer (or a PostgreSQL lock) for long. Each retained table is one line below.
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { RetainedTable } from '../config.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Deletes up to about `batch` rows older than `before`; returns how many went (fewer than `batch`: none left). */
export type Prune = (db: Db, before: number, batch: number) => Promise<number>;

/** The steps of each setting, run in order, each to the end. */
export const RETAINED: Record<RetainedTable, readonly Prune[]> = {
  history: [byAge('metric_snapshots', 'bucket')],
  audit: [byAge('audit_log', 'at')],
  imports: [byAge('imports', 'created_at')],
  idempotency: [byAge('idempotency_keys', 'created_at')],
  events: [pruneEvents, pruneAttempts],
  // Identities of followers who left (followers_gone); current followers have no gone_at.
  followers: [byAge('followers', 'gone_at')],
  // Sent and failed messages with their attempts; a message still being tried stays however old.
  mail: [pruneMail],
};

/**
 * Rows of `table` by an epoch-ms column with an index (migration 004), so a batch never scans.
 * Rows are taken oldest first, up to the time of the `batch`-th oldest (rows sharing that time go
 * together, which both dialects can do without a row id).
 */
function byAge(table: keyof Database, column: string): Prune {
  return async (db, before, batch) => {
    const from = sql.table(table);
    const time = sql.ref(column);
    const edge = await sql<{
      t: number;
    }>`select ${time} as t from ${from} where ${time} < ${before} order by ${time} limit 1 offset ${batch - 1}`.execute(
      db,
    );
    const upTo = edge.rows[0] === undefined ? sql`${time} < ${before}` : sql`${time} <= ${Number(edge.rows[0].t)}`;
    const result = await sql`delete from ${from} where ${upTo}`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  };
}

/** An event no endpoint still has to receive (a delivery still pending keeps it, however old). */
const undelivered = ({ exists, selectFrom }: ExpressionBuilder<Database, 'events'>) =>
  exists(
    selectFrom('webhook_deliveries as d')
      .select('d.id')
      .whereRef('d.event_seq', '=', 'events.seq')
      .where('d.status', '=', 'pending'),
  );

/**
 * Events older than `before`, oldest first (events_created), except those an endpoint still has
 * to receive; their finished deliveries go with them. The delete checks again for a pending
 * delivery, so one queued since the read keeps its event.
 */
async function pruneEvents(db: Db, before: number, batch: number): Promise<number> {
  const rows = await db
    .selectFrom('events')
    .select('seq')
    .where('created_at', '<', before)
    .where((eb) => eb.not(undelivered(eb)))
    .orderBy('created_at')
    .limit(batch)
    .execute();
  if (rows.length === 0) return 0;
  const seqs = rows.map((row) => Number(row.seq));
  await db.deleteFrom('webhook_deliveries').where('event_seq', 'in', seqs).where('status', '<>', 'pending').execute();
  await db
    .deleteFrom('events')
    .where('seq', 'in', seqs)
    .where((eb) => eb.not(undelivered(eb)))
    .execute();
  return rows.length;
}

/**
 * The attempts log, by the same age. It has no index on its time but ids grow with it, so each
 * batch looks at the oldest `batch` ids only (the primary key). A row stamped ahead (by a process
 * whose clock runs fast) ends each round early until it is old too.
 */
async function pruneAttempts(db: Db, before: number, batch: number): Promise<number> {
  const oldest = db.selectFrom('webhook_attempts').select('id').orderBy('id').limit(batch);
  const result = await db
    .deleteFrom('webhook_attempts')
    .where('id', 'in', oldest)
    .where('at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Messages sent or failed before `before`, with their attempts, oldest first through the created
 * index (a message finishes after it was created; those still being tried are few). A digest's
 * send record keeps its claim on the period; its mail id then names a pruned message.
 */
async function pruneMail(db: Db, before: number, batch: number): Promise<number> {
  const rows = await db
    .selectFrom('mail_outbox')
    .select('id')
    .where('created_at', '<', before)
    .where('status', '<>', 'pending')
    .where('finished_at', '<', before)
    .orderBy('created_at')
    .limit(batch)
    .execute();
  if (rows.length === 0) return 0;
  const ids = rows.map((r) => Number(r.id));
  await db.deleteFrom('mail_attempts').where('mail_id', 'in', ids).execute();
  await db.deleteFrom('mail_outbox').where('id', 'in', ids).where('status', '<>', 'pending').execute();
  return rows.length;
}
