// Bluesky's Jetstream (DESIGN.md §10): one row per shard of a stream, holding the shard's cursor
// (the last applied `time_us`, written in the transaction of what its frames produced), whether
// its connection is healthy (polling skips the timelines it covers until `healthy_until`), an
// open gap awaiting its backfill, and the lease of the `perch worker` that owns the shard; and
// accounts found by DID, as frames name them.
import type { Kysely, Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function jetstreamSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('stream_shards')
        // The stream's name (`posts`; others may follow, e.g. follows) and the shard's number.
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        // How many shards the stream had when this row was written: the DID → shard map depends on it.
        .addColumn('shards', 'integer', (c) => c.notNull())
        .addColumn('cursor_us', 'bigint')
        .addColumn('healthy_until', 'bigint')
        .addColumn('connected_at', 'bigint')
        .addColumn('reconnects', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('gaps', 'bigint', (c) => c.notNull().defaultTo(0))
        // When the open gap was found and from which time_us; null: none open.
        .addColumn('gap_found_at', 'bigint')
        .addColumn('gap_from_us', 'bigint')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('stream_shards_pkey', ['stream', 'shard'])
        .execute();
      // Frames name accounts by DID: each batch of frames finds its accounts through this index.
      await db.schema
        .createIndex('accounts_platform_user_id')
        .on('accounts')
        .columns(['platform', 'platform_user_id'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropIndex('accounts_platform_user_id').execute();
      await db.schema.dropTable('stream_shards').execute();
    },
  };
}
