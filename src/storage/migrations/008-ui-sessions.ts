// Dashboard sign-ins: one row per session, found by the hash of its cookie, so any process sharing
// the store can serve it and a stolen database does not hold usable cookies.
import type { Kysely, Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function uiSessionsSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('ui_sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('username', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ui_sessions_key_id').on('ui_sessions').column('key_id').execute();
      await db.schema.createIndex('ui_sessions_expires_at').on('ui_sessions').column('expires_at').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('ui_sessions').execute();
    },
  };
}
