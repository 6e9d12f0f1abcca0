// The outbox: deliveries claimed under a lease (one process sends a delivery at a time, a dead
// process's deliveries come back when the lease ends), their outcome, and the attempts log.
import { sql, type Kysely } from 'kysely';
import type { EventType } from '../domain/events.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { parseJson } from './json-column.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
const PENDING = sql.lit('pending');

export interface ClaimedDelivery {
  id: number;
  webhookId: string;
  attempts: number;
  event: { id: string; type: EventType; createdAt: string; data: Record<string, unknown> };
}

export interface DeliveryClaim {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  /** Endpoints this process is already sending to as much as it may: left for later. */
  skipWebhooks: readonly string[];
}

/**
 * Leases up to `limit` due deliveries of enabled endpoints, oldest due first. PostgreSQL skips
 * rows another process is claiming (FOR UPDATE SKIP LOCKED); SQLite has one writer.
 */
export async function claimDeliveries(
  db: Db,
  caps: DialectCapabilities,
  claim: DeliveryClaim,
): Promise<ClaimedDelivery[]> {
  const { owner, now, leaseMs, limit, skipWebhooks } = claim;
  let due = db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    // A literal, not a parameter: only then can SQLite (and a generic PostgreSQL plan) use the partial index.
    .where('d.status', '=', PENDING)
    .where('d.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_expires_at', 'is', null), eb('d.lease_expires_at', '<=', now)]))
    // A subquery, not a join: a join would lock the endpoint's row too, and skip it for everyone.
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhooks as w').select('w.id').whereRef('w.id', '=', 'd.webhook_id').where('w.enabled', '=', 1),
      ),
    )
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .limit(limit);
  if (skipWebhooks.length > 0) due = due.where('d.webhook_id', 'not in', skipWebhooks);
  if (caps.skipLocked) due = due.forUpdate().skipLocked();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
    .where('id', 'in', due)
    .returning(['id', 'webhook_id', 'event_seq', 'attempts'])
    .execute();
  if (claimed.length === 0) return [];
  const events = await db
    .selectFrom('events')
    .select(['seq', 'id', 'type', 'created_at', 'data'])
    .where('seq', 'in', [...new Set(claimed.map((c) => Number(c.event_seq)))])
    .execute();
  const bySeq = new Map(events.map((e) => [Number(e.seq), e]));
  const out: ClaimedDelivery[] = [];
  for (const row of claimed) {
    const event = bySeq.get(Number(row.event_seq));
    if (!event) continue; // purged meanwhile; finishDelivery never runs for it and retention drops it
    out.push({
      id: Number(row.id),
      webhookId: row.webhook_id,
      attempts: row.attempts,
      event: {
        id: event.id,
        type: event.type as EventType,
        createdAt: new Date(Number(event.created_at)).toISOString(),
        data: parseJson(event.data, {}),
      },
    });
  }
  return out;
}

/** Gives leases back unsent (shutdown, or more than this process may send to one endpoint now). */
export async function releaseDeliveries(db: Db, owner: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('lease_owner', '=', owner)
    .where('id', 'in', ids)
    .execute();
}

/** One attempt as the deliveries log shows it. */
export interface AttemptView {
  id: number;
  eventId: string;
  eventType: string;
  attempt: number;
  at: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** When the next attempt is due, or null: delivered, or failed for good. */
  nextRetryAt: number | null;
}

/** One attempt as the deliverer writes it: the log's fields, the delivery it ends and how. */
export interface AttemptRecord extends Omit<AttemptView, 'id'> {
  deliveryId: number;
  webhookId: string;
  outcome: 'delivered' | 'retry' | 'failed';
}

/** Writes one attempt's outcome, only while `owner` still holds the lease. False when it was lost. */
export async function finishAttempt(db: Db, owner: string, attempt: AttemptRecord): Promise<boolean> {
  const pending = attempt.outcome === 'retry';
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      status: pending ? 'pending' : attempt.outcome,
      attempts: attempt.attempt,
      next_attempt_at: attempt.nextRetryAt ?? attempt.at,
      finished_at: pending ? null : attempt.at,
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('id', '=', attempt.deliveryId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await db
    .insertInto('webhook_attempts')
    .values({
      delivery_id: attempt.deliveryId,
      webhook_id: attempt.webhookId,
      event_id: attempt.eventId,
      event_type: attempt.eventType,
      attempt: attempt.attempt,
      at: attempt.at,
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      error: attempt.error,
      next_retry_at: attempt.nextRetryAt,
    })
    .execute();
  return true;
}

/** An endpoint's attempts, newest first. */
export async function listAttempts(
  db: Db,
  webhookId: string,
  options: { before?: number; limit: number },
): Promise<AttemptView[]> {
  let select = db.selectFrom('webhook_attempts').selectAll().where('webhook_id', '=', webhookId);
  if (options.before !== undefined) select = select.where('id', '<', options.before);
  const rows = await select.orderBy('id', 'desc').limit(options.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    eventId: r.event_id,
    eventType: r.event_type,
    attempt: r.attempt,
    at: Number(r.at),
    statusCode: r.status_code,
    durationMs: r.duration_ms,
    error: r.error,
    nextRetryAt: r.next_retry_at === null ? null : Number(r.next_retry_at),
  }));
}

/** Deliveries waiting (for health and metrics): how many, and since when the oldest is due. */
export async function queueState(db: Db): Promise<{ pending: number; oldestDueAt: number | null }> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .select([sql<number>`count(*)`.as('n'), (eb) => eb.fn.min('d.next_attempt_at').as('oldest')])
    .where('d.status', '=', PENDING)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhooks as w').select('w.id').whereRef('w.id', '=', 'd.webhook_id').where('w.enabled', '=', 1),
      ),
    )
    .executeTakeFirst();
  return {
    pending: Number(row?.n ?? 0),
    oldestDueAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
  };
}

/** When the next delivery falls due, so an idle deliverer knows how long it may sleep. */
export async function nextDeliveryDueAt(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', '=', PENDING)
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}
