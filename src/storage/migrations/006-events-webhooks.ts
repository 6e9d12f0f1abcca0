// Events and webhooks: the event log (its `seq` is the polling cursor), what the event rules
// remember per account, the webhook endpoints, and the outbox of deliveries with their attempts.
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialects/capabilities.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function eventsWebhooksSchema(caps: DialectCapabilities): Migration {
  // Events and deliveries can outgrow a 32-bit counter on a busy deployment.
  const bigAutoId = caps.autoIdType === 'integer' ? 'integer' : 'bigserial';
  const autoKey = (c: any) => (caps.autoIdType === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey());
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('events')
        .addColumn('seq', bigAutoId, autoKey)
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('account_id', 'integer')
        .addColumn('platform', 'text')
        .addColumn('username_key', 'text')
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_created').on('events').columns(['created_at']).execute();

      await db.schema
        .createTable('event_marks')
        .addColumn('account_id', 'integer', (c) => c.primaryKey())
        .addColumn('milestone_floor', 'bigint', (c) => c.notNull())
        .addColumn('points', 'text', (c) => c.notNull())
        .addColumn('last_spike_at', 'bigint')
        .execute();

      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        // Secrets are sealed (AES-GCM under a key derived from KEY_HASH_SECRET), never stored plain.
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', 'bigint')
        .addColumn('failing_since', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      // No foreign key to webhooks: deleting an endpoint must never make a tracker's write fail.
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', bigAutoId, autoKey)
        .addColumn('webhook_id', 'text', (c) => c.notNull())
        .addColumn('event_seq', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'bigint')
        .addUniqueConstraint('webhook_deliveries_once', ['webhook_id', 'event_seq'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_by_event')
        .on('webhook_deliveries')
        .columns(['event_seq'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['next_attempt_at', 'id'])
        .where(sql.ref('status'), '=', 'pending')
        .execute();

      await db.schema
        .createTable('webhook_attempts')
        .addColumn('id', bigAutoId, autoKey)
        .addColumn('delivery_id', 'bigint', (c) => c.notNull())
        .addColumn('webhook_id', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('next_retry_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('webhook_attempts_by_webhook')
        .on('webhook_attempts')
        .columns(['webhook_id', 'id'])
        .execute();
    },
  };
}
