// Filters served from indexes: status and platform lead an index per sort, tags become rows of
// their own carrying the account's filter and sort columns, counts are kept per tag, platform and
// status, and events get indexes for their filters. Existing tags and counts are moved over here.
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialects/capabilities.ts';

// The list's sort values, exactly as storage/accounts-list.ts writes them (missing numbers last).
const FOLLOWERS = 'coalesce(followers, -1)';
const GROWTH = 'coalesce(followers_change_7d, -9007199254740991)';
const CHECKED = 'coalesce(last_checked_at, 0)';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function filterIndexesSchema(caps: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<any>) {
      // One row per tag of a tracked account; accounts.tags stays the record's source (its JSON
      // text is written into the API's answer as it is), and these rows follow it in the same
      // transaction. Untracked accounts have none.
      await db.schema
        .createTable('account_tags')
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('tag', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('username_key', 'text', (c) => c.notNull().modifyEnd(sql.raw(`collate ${caps.bytewiseCollation}`)))
        .addColumn('sort_followers', 'bigint', (c) => c.notNull())
        .addColumn('sort_growth', 'bigint', (c) => c.notNull())
        .addColumn('sort_checked', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('account_tags_pkey', ['account_id', 'tag'])
        .execute();
      // Tracked accounts per tag ('' for all of them), platform and status.
      await db.schema
        .createTable('account_counts')
        .addColumn('tag', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('n', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('account_counts_pkey', ['tag', 'platform', 'status'])
        .execute();

      // Each sort's (value, id) under platform and status, tracked accounts only. The username
      // rides along at the end of the numeric ones, so a prefix is checked in the index itself.
      // Each index also says which side of the first value every row is on (storage/accounts-list.ts,
      // armsOf: so each query can be served by its own index only).
      const MAX = Number.MAX_SAFE_INTEGER;
      await sql`create index accounts_list_username on accounts (platform, status, username_key, id)
        where untracked_at is null and (username_key >= '') is true`.execute(db);
      for (const [name, value] of [
        ['followers', FOLLOWERS],
        ['growth', GROWTH],
        ['checked', CHECKED],
      ] as const)
        await sql`create index ${sql.raw(`accounts_list_${name}`)} on accounts (platform, status, (${sql.raw(value)}), id, username_key)
          where untracked_at is null and ${sql.raw(`(${value} <= ${MAX}) is true`)}`.execute(db);
      await sql`create index account_tags_username on account_tags (tag, platform, status, username_key, account_id)
        where (username_key >= '') is true`.execute(db);
      for (const name of ['followers', 'growth', 'checked'])
        await sql`create index ${sql.raw(`account_tags_${name}`)} on account_tags (tag, platform, status, ${sql.raw(`sort_${name}`)}, account_id, username_key)
          where ${sql.raw(`(sort_${name} <= ${MAX}) is true`)}`.execute(db);
      // Replaced by the ones above (accounts_by_status served the grouped counts, now kept in account_counts).
      for (const name of [
        'accounts_username_key',
        'accounts_by_followers',
        'accounts_by_growth',
        'accounts_by_last_check',
        'accounts_by_status',
      ])
        await db.schema.dropIndex(name).execute();

      await sql`insert into account_tags (account_id, tag, platform, status, username_key, sort_followers, sort_growth, sort_checked)
        select distinct a.id, j.value, a.platform, a.status, a.username_key, ${sql.raw(FOLLOWERS)}, ${sql.raw(GROWTH)}, ${sql.raw(CHECKED)}
        from accounts a ${caps.jsonArrayElements(sql.ref('a.tags'), 'j')}
        where a.untracked_at is null and a.tags <> '[]'`.execute(db);
      await sql`insert into account_counts (tag, platform, status, n)
        select '', platform, status, count(*) from accounts where untracked_at is null group by platform, status`.execute(
        db,
      );
      await sql`insert into account_counts (tag, platform, status, n)
        select tag, platform, status, count(*) from account_tags group by tag, platform, status`.execute(db);

      // Events: by platform and type (those of no account apart), and by account (platform,
      // username) and type, each in seq order (storage/events-list.ts).
      await db.schema.createIndex('events_by_kind').on('events').columns(['platform', 'type', 'seq']).execute();
      await db.schema
        .createIndex('events_unattached')
        .on('events')
        .columns(['type', 'seq'])
        .where(sql.ref('platform'), 'is', null)
        .execute();
      await db.schema
        .createIndex('events_by_account')
        .on('events')
        .columns(['platform', 'username_key', 'type', 'seq'])
        .execute();
    },
  };
}
