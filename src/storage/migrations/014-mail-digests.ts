// Mail and digests: the mail outbox (one row per message, claimed under a lease like the webhook
// deliveries) with its attempts log, the digests, and the sends claimed per (digest, period) so a
// period's digest goes out once however many processes run the scheduler.
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialects/capabilities.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function mailDigestsSchema(caps: DialectCapabilities): Migration {
  const bigAutoId = caps.autoIdType === 'integer' ? 'integer' : 'bigserial';
  const autoKey = (c: any) => (caps.autoIdType === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey());
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('mail_outbox')
        .addColumn('id', bigAutoId, autoKey)
        // digest or alert, and what it is about (a digest send, an alert rule): for the log.
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('ref', 'text', (c) => c.notNull())
        .addColumn('recipients', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('html', 'text', (c) => c.notNull())
        .addColumn('body_text', 'text', (c) => c.notNull())
        // pending, sent or failed.
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'bigint')
        .execute();
      await db.schema
        .createIndex('mail_outbox_due')
        .on('mail_outbox')
        .columns(['next_attempt_at', 'id'])
        .where(sql.ref('status'), '=', 'pending')
        .execute();
      await db.schema.createIndex('mail_outbox_created').on('mail_outbox').columns(['created_at']).execute();

      await db.schema
        .createTable('mail_attempts')
        .addColumn('id', bigAutoId, autoKey)
        .addColumn('mail_id', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('recipients', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        // sent, retry or failed; the server's reply (or the error) as it said it.
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('response', 'text')
        .addColumn('error', 'text')
        .addColumn('next_retry_at', 'bigint')
        .execute();
      await db.schema.createIndex('mail_attempts_by_mail').on('mail_attempts').columns(['mail_id', 'id']).execute();

      await db.schema
        .createTable('digests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('schedule', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('time_zone', 'text', (c) => c.notNull())
        .addColumn('recipients', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      // The claim: the first process to insert (digest, period end) sends it; the others' inserts
      // conflict and they move on. No foreign key: deleting a digest never fails on its history.
      await db.schema
        .createTable('digest_sends')
        .addColumn('digest_id', 'text', (c) => c.notNull())
        .addColumn('period_end', 'bigint', (c) => c.notNull())
        .addColumn('period_start', 'bigint', (c) => c.notNull())
        .addColumn('claimed_at', 'bigint', (c) => c.notNull())
        .addColumn('late', 'integer', (c) => c.notNull())
        .addColumn('mail_id', 'bigint')
        .addPrimaryKeyConstraint('digest_sends_pkey', ['digest_id', 'period_end'])
        .execute();
    },
  };
}
