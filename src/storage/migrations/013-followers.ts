// Who followed, who left (DESIGN §11): one row per follower identity of an account, and one row
// per account for its follower passes (the page cursor is kept, so a pass resumes after a crash).
// A row is pending (first_seen null) until the pass that found it closes; a pass marks what it saw
// with its number (seen_pass), so closing it is a few statements in the store, whatever the size.
import { sql, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function followersSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('followers')
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('follower_id', 'text', (c) => c.notNull())
        .addColumn('handle', 'text', (c) => c.notNull())
        .addColumn('first_seen', 'bigint')
        .addColumn('gained_at', 'bigint')
        .addColumn('gone_at', 'bigint')
        .addColumn('seen_pass', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('pass_handle', 'text')
        .addPrimaryKeyConstraint('followers_pkey', ['account_id', 'follower_id'])
        .execute();
      // "gained since" and "lost since", each in time order per account; the primary key serves
      // "current" in id order. Retention takes the oldest gone rows of every account.
      await sql`create index followers_gained on followers (account_id, gained_at, follower_id)
        where gained_at is not null`.execute(db);
      await sql`create index followers_lost on followers (account_id, gone_at, follower_id)
        where gone_at is not null`.execute(db);
      await sql`create index followers_gone on followers (gone_at) where gone_at is not null`.execute(db);

      await db.schema
        .createTable('follower_passes')
        .addColumn('account_id', 'integer', (c) => c.primaryKey())
        .addColumn('pass_id', 'bigint', (c) => c.notNull())
        .addColumn('cursor', 'text')
        .addColumn('started_at', 'bigint')
        .addColumn('pages', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('seen', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('finished_at', 'bigint')
        .addColumn('followers', 'bigint')
        .addColumn('next_at', 'bigint', (c) => c.notNull())
        .addColumn('last_event_at', 'bigint')
        .addColumn('last_error', 'text')
        // One process runs an account's pass at a time (a crashed one's lease runs out).
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'bigint')
        .execute();
      await db.schema.createIndex('follower_passes_due').on('follower_passes').columns(['next_at']).execute();

      // null: the default rule (Bluesky accounts up to FOLLOWER_LIST_MAX); 1 on, 0 off.
      await db.schema.alterTable('accounts').addColumn('follower_list', 'integer').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('followers').execute();
      await db.schema.dropTable('follower_passes').execute();
      await db.schema.alterTable('accounts').dropColumn('follower_list').execute();
    },
  };
}
