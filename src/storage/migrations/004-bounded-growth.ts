// Indexes for pruning by age (services/retention.ts): each retained table is trimmed oldest first
// in small batches, so each batch must find its oldest rows without reading the table.
import type { Kysely, Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function boundedGrowthSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('metric_snapshots_by_bucket').on('metric_snapshots').columns(['bucket']).execute();
      await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at']).execute();
      await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').columns(['created_at']).execute();
      // imports already has imports_created (created_at, id).
    },
    async down(db: Kysely<any>) {
      for (const name of ['metric_snapshots_by_bucket', 'audit_log_at', 'idempotency_keys_created'])
        await db.schema.dropIndex(name).execute();
    },
  };
}
