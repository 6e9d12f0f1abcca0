// What the tracker keeps: metric snapshots (one per account per time bucket), recent posts, the
// compact follower series analysis reads, and the platforms' daily read counts.
import { sql, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function trackingSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('accounts').addColumn('last_post_id', 'text').execute();
      // The post count when the timeline was last read: posts are fetched only when it moved.
      await db.schema.alterTable('accounts').addColumn('posts_seen_count', 'bigint').execute();
      await db.schema.alterTable('accounts').addColumn('follower_series', 'text').execute();
      // Claims walk due accounts in (next_check_at, id) order. Names never resolved are claimed
      // first, through their own partial index, so that query never scans the resolved ones.
      await db.schema
        .createIndex('accounts_claim')
        .on('accounts')
        .columns(['platform', 'next_check_at', 'id'])
        .execute();
      // Counts by status (metrics, health) read this index alone instead of every row.
      await db.schema
        .createIndex('accounts_by_status')
        .on('accounts')
        .columns(['platform', 'status'])
        .where(sql.ref('untracked_at'), 'is', null)
        .execute();
      await db.schema
        .createIndex('accounts_unresolved')
        .on('accounts')
        .columns(['platform', 'next_check_at', 'id'])
        .where(sql.ref('platform_user_id'), 'is', null)
        .execute();

      await db.schema
        .createTable('metric_snapshots')
        .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('bucket', 'bigint', (c) => c.notNull())
        .addColumn('observed_at', 'bigint', (c) => c.notNull())
        .addColumn('followers', 'bigint', (c) => c.notNull())
        .addColumn('following', 'bigint', (c) => c.notNull())
        .addColumn('posts', 'bigint', (c) => c.notNull())
        .addColumn('listed', 'bigint')
        .addPrimaryKeyConstraint('metric_snapshots_pk', ['account_id', 'bucket'])
        .execute();

      await db.schema
        .createTable('posts')
        .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('post_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('url', 'text')
        .addColumn('lang', 'text')
        .addColumn('sentiment', 'double precision')
        .addColumn('is_repost', 'integer', (c) => c.notNull())
        .addColumn('is_reply', 'integer', (c) => c.notNull())
        .addColumn('likes', 'bigint', (c) => c.notNull())
        .addColumn('reposts', 'bigint', (c) => c.notNull())
        .addColumn('replies', 'bigint', (c) => c.notNull())
        .addColumn('quotes', 'bigint', (c) => c.notNull())
        .addColumn('hashtags', 'text', (c) => c.notNull())
        .addColumn('mentions', 'text', (c) => c.notNull())
        .addColumn('domains', 'text', (c) => c.notNull())
        .addColumn('fetched_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('posts_pk', ['account_id', 'post_id'])
        .execute();
      await db.schema.createIndex('posts_by_time').on('posts').columns(['account_id', 'created_at']).execute();

      await db.schema
        .createTable('platform_usage')
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('reads', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('platform_usage_pk', ['platform', 'day'])
        .execute();
    },
  };
}
