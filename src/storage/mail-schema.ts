// The mail and digest tables as Kysely sees them (migration 014); part of `Database`.
import type { Generated } from 'kysely';

export interface MailOutboxTable {
  id: Generated<number>;
  /** digest or alert. */
  kind: string;
  ref: string;
  /** JSON array of addresses. */
  recipients: string;
  subject: string;
  html: string;
  body_text: string;
  /** pending, sent or failed. */
  status: string;
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface MailAttemptsTable {
  id: Generated<number>;
  mail_id: number;
  kind: string;
  subject: string;
  recipients: string;
  attempt: number;
  at: number;
  duration_ms: number;
  /** sent, retry or failed. */
  outcome: string;
  response: string | null;
  error: string | null;
  next_retry_at: number | null;
}

export interface DigestsTable {
  id: string;
  name: string;
  /** JSON { tags?, platform?, accounts? }. */
  scope: string;
  /** daily or weekly. */
  schedule: string;
  /** Local time "HH:MM". */
  at: string;
  time_zone: string;
  /** JSON array of addresses. */
  recipients: string;
  created_at: number;
  updated_at: number;
}

export interface DigestSendsTable {
  digest_id: string;
  period_end: number;
  period_start: number;
  claimed_at: number;
  late: number;
  mail_id: number | null;
}

export interface MailDigestTables {
  mail_outbox: MailOutboxTable;
  mail_attempts: MailAttemptsTable;
  digests: DigestsTable;
  digest_sends: DigestSendsTable;
}
