// The first schema: accounts, API keys, imports, the audit log and idempotency records.
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialects/capabilities.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function initialSchema(caps: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', caps.autoIdType, (c) =>
          caps.autoIdType === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey(),
        )
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('username_key', 'text', (c) => c.notNull().modifyEnd(sql.raw(`collate ${caps.bytewiseCollation}`)))
        .addColumn('platform_user_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
        .addColumn('status_reason', 'text')
        .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('note', 'text')
        .addColumn('profile', 'text')
        .addColumn('metrics', 'text')
        .addColumn('analysis', 'text')
        .addColumn('renames', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('followers', 'bigint')
        .addColumn('followers_change_7d', 'bigint')
        .addColumn('tracked_since', 'bigint', (c) => c.notNull())
        .addColumn('last_checked_at', 'bigint')
        .addColumn('next_check_at', 'bigint')
        .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('untracked_at', 'bigint')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('accounts_platform_username_key', ['platform', 'username_key'])
        .execute();
      await db.schema.createIndex('accounts_username_key').on('accounts').columns(['username_key', 'id']).execute();
      await db.schema.createIndex('accounts_due').on('accounts').columns(['next_check_at']).execute();
      // The list sorts on these exact expressions (missing numbers last, the same on both dialects).
      await sql`create index accounts_by_followers on accounts ((coalesce(followers, -1)), id)`.execute(db);
      await sql`create index accounts_by_growth on accounts ((coalesce(followers_change_7d, -9007199254740991)), id)`.execute(
        db,
      );
      await sql`create index accounts_by_last_check on accounts ((coalesce(last_checked_at, 0)), id)`.execute(db);

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('start', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('expires_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .addColumn('last_used_at', 'bigint')
        .execute();

      await db.schema
        .createTable('imports')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('received', 'integer', (c) => c.notNull())
        .addColumn('accepted', 'integer', (c) => c.notNull())
        .addColumn('inserted', 'integer', (c) => c.notNull())
        .addColumn('reactivated', 'integer', (c) => c.notNull())
        .addColumn('already_tracked', 'integer', (c) => c.notNull())
        .addColumn('duplicates', 'integer', (c) => c.notNull())
        .addColumn('rejected_count', 'integer', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('imports_created').on('imports').columns(['created_at', 'id']).execute();

      await db.schema
        .createTable('audit_log')
        .addColumn('id', caps.autoIdType, (c) =>
          caps.autoIdType === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey(),
        )
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('actor', 'text')
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target', 'text')
        .addColumn('detail', 'text')
        .execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('route', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer', (c) => c.notNull())
        .addColumn('response', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['owner', 'idempotency_key', 'route'])
        .execute();
    },
  };
}
