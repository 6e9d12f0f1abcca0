// The events and webhooks tables as Kysely sees them (migration 006); part of `Database`.
import type { Generated } from 'kysely';

export interface EventsTable {
  /** Commit-ordered position: the polling cursor. */
  seq: Generated<number>;
  id: string;
  type: string;
  created_at: number;
  account_id: number | null;
  platform: string | null;
  username_key: string | null;
  /** JSON: the event's `data`. */
  data: string;
}

export interface EventMarksTable {
  account_id: number;
  milestone_floor: number;
  /** JSON [[epoch ms, followers], …] of the last 24 h. */
  points: string;
  last_spike_at: number | null;
}

export interface WebhooksTable {
  id: string;
  url: string;
  /** JSON array of event types, or ["*"]. */
  events: string;
  /** JSON array of account tags; empty: every account. */
  tags: string;
  description: string | null;
  enabled: number;
  disabled_reason: string | null;
  /** Sealed `whsec_…` secret. */
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  /** Start of the current run of failed attempts, or null after a success. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: string;
  event_seq: number;
  /** pending, delivered or failed. */
  status: string;
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  finished_at: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  at: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_retry_at: number | null;
}

export interface EventsWebhooksTables {
  events: EventsTable;
  event_marks: EventMarksTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
