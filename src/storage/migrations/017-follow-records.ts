// Live follows (DESIGN §11): the follow records seen created on Jetstream for tracked subjects,
// because a delete frame carries only (follower DID, rkey), not whom it unfollowed. A row also
// holds its change until it is announced (account.followers_changed, at most one a minute), and a
// deleted record stays a while as a tombstone, so a replayed frame changes nothing.
import { sql, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function followRecordsSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('follow_records')
        .addColumn('follower_did', 'text', (c) => c.notNull())
        .addColumn('rkey', 'text', (c) => c.notNull())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('created_us', 'bigint', (c) => c.notNull())
        .addColumn('deleted_us', 'bigint')
        .addColumn('gained_at', 'bigint')
        .addColumn('lost_at', 'bigint')
        .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('follow_records_pkey', ['follower_did', 'rkey'])
        .execute();
      // Another record of the same follower for the same subject (a double follow) keeps them following.
      await db.schema
        .createIndex('follow_records_subject')
        .on('follow_records')
        .columns(['account_id', 'follower_did'])
        .execute();
      await sql`create index follow_records_pending on follow_records (account_id) where pending = 1`.execute(db);
      await sql`create index follow_records_deleted on follow_records (deleted_us) where deleted_us is not null`.execute(
        db,
      );
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('follow_records').execute();
    },
  };
}
