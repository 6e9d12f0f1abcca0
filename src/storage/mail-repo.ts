// The mail outbox: messages claimed under a lease (one process sends a message at a time, a dead
// process's messages come back when the lease ends), their outcome, and the attempts log.
import { sql, type Kysely } from 'kysely';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { parseJson } from './json-column.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
const PENDING = sql.lit('pending');

export type MailKind = 'digest' | 'alert';

/** A message to send: to whom, what, and what it is about (a digest send, an alert rule). */
export interface OutgoingMail {
  to: readonly string[];
  subject: string;
  html: string;
  text: string;
  kind: MailKind;
  ref: string;
}

export interface ClaimedMail extends OutgoingMail {
  id: number;
  attempts: number;
}

/** Puts one message in the outbox (in the caller's transaction); returns its id. */
export async function insertMail(db: Db, mail: OutgoingMail, now: number): Promise<number> {
  const row = await db
    .insertInto('mail_outbox')
    .values({
      kind: mail.kind,
      ref: mail.ref,
      recipients: JSON.stringify(mail.to),
      subject: mail.subject,
      html: mail.html,
      body_text: mail.text,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/**
 * Leases up to `limit` due messages, oldest due first. PostgreSQL skips rows another process is
 * claiming (FOR UPDATE SKIP LOCKED); SQLite has one writer.
 */
export async function claimMail(
  db: Db,
  caps: DialectCapabilities,
  claim: { owner: string; now: number; leaseMs: number; limit: number },
): Promise<ClaimedMail[]> {
  const { owner, now, leaseMs, limit } = claim;
  let due = db
    .selectFrom('mail_outbox')
    .select('id')
    // A literal, so the partial index serves it (as for the webhook deliveries).
    .where('status', '=', PENDING)
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
  if (caps.skipLocked) due = due.forUpdate().skipLocked();
  const rows = await db
    .updateTable('mail_outbox')
    .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
    .where('id', 'in', due)
    .returning(['id', 'kind', 'ref', 'recipients', 'subject', 'html', 'body_text', 'attempts'])
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind as MailKind,
    ref: r.ref,
    to: parseJson<string[]>(r.recipients, []),
    subject: r.subject,
    html: r.html,
    text: r.body_text,
    attempts: r.attempts,
  }));
}

/** One attempt as the mail log shows it. */
export interface MailAttemptView {
  id: number;
  mailId: number;
  kind: MailKind;
  subject: string;
  to: string[];
  attempt: number;
  at: number;
  durationMs: number;
  outcome: 'sent' | 'retry' | 'failed';
  /** The server's last reply line, when it answered. */
  response: string | null;
  error: string | null;
  nextRetryAt: number | null;
}

export type MailAttemptRecord = Omit<MailAttemptView, 'id'>;

/** Writes one attempt's outcome, only while `owner` still holds the lease. False when it was lost. */
export async function finishMailAttempt(db: Db, owner: string, attempt: MailAttemptRecord): Promise<boolean> {
  const pending = attempt.outcome === 'retry';
  const result = await db
    .updateTable('mail_outbox')
    .set({
      status: pending ? 'pending' : attempt.outcome,
      attempts: attempt.attempt,
      next_attempt_at: attempt.nextRetryAt ?? attempt.at,
      finished_at: pending ? null : attempt.at,
      last_error: attempt.error,
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('id', '=', attempt.mailId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await db
    .insertInto('mail_attempts')
    .values({
      mail_id: attempt.mailId,
      kind: attempt.kind,
      subject: attempt.subject,
      recipients: JSON.stringify(attempt.to),
      attempt: attempt.attempt,
      at: attempt.at,
      duration_ms: attempt.durationMs,
      outcome: attempt.outcome,
      response: attempt.response,
      error: attempt.error,
      next_retry_at: attempt.nextRetryAt,
    })
    .execute();
  return true;
}

/** Every message's attempts, newest first (a page of at most `limit`, before the attempt `before`). */
export async function listMailAttempts(
  db: Db,
  options: { before?: number | undefined; limit: number },
): Promise<MailAttemptView[]> {
  let select = db.selectFrom('mail_attempts').selectAll();
  if (options.before !== undefined) select = select.where('id', '<', options.before);
  const rows = await select.orderBy('id', 'desc').limit(options.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    mailId: Number(r.mail_id),
    kind: r.kind as MailKind,
    subject: r.subject,
    to: parseJson<string[]>(r.recipients, []),
    attempt: r.attempt,
    at: Number(r.at),
    durationMs: r.duration_ms,
    outcome: r.outcome as MailAttemptView['outcome'],
    response: r.response,
    error: r.error,
    nextRetryAt: r.next_retry_at === null ? null : Number(r.next_retry_at),
  }));
}

/** Messages waiting (for health): how many, since when the oldest is due, and the last failure. */
export async function mailQueueState(db: Db): Promise<{ pending: number; oldestDueAt: number | null }> {
  const row = await db
    .selectFrom('mail_outbox')
    .select([sql<number>`count(*)`.as('n'), (eb) => eb.fn.min('next_attempt_at').as('oldest')])
    .where('status', '=', PENDING)
    .executeTakeFirst();
  return {
    pending: Number(row?.n ?? 0),
    oldestDueAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
  };
}

/** When the next message falls due, so an idle sender knows how long it may sleep. */
export async function nextMailDueAt(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('mail_outbox')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', '=', PENDING)
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}
