// The Overview's movers and its followers-over-time chart: the day's follower change beside the
// week's, with an index of its own (gainers read it downwards, losers upwards), and the total
// followers of the tracked accounts per day, for all of them ('') and per tag, kept by the writers
// in the same transaction as the accounts (storage/follower-totals-repo.ts). Today's totals are
// taken from the accounts here (when they have any); earlier days start empty.
import { sql, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run against the schema as it was then */
export function moversAndTotalsSchema(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('accounts').addColumn('followers_change_1d', 'bigint').execute();
      // Known changes only, so no list query (which sorts missing changes last) can take them for its own.
      for (const window of ['1d', '7d'])
        await sql`create index ${sql.raw(`accounts_movers_${window}`)} on accounts (${sql.raw(`followers_change_${window}`)}, id)
          where untracked_at is null and ${sql.raw(`followers_change_${window}`)} is not null`.execute(db);
      await db.schema
        .createTable('follower_totals')
        .addColumn('tag', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('total', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('follower_totals_pkey', ['tag', 'day'])
        .execute();
      const today = new Date().toISOString().slice(0, 10);
      await sql`insert into follower_totals (tag, day, total)
        select '', ${today}, t.n from (select sum(followers) as n from accounts where untracked_at is null) t
        where t.n > 0`.execute(db);
      await sql`insert into follower_totals (tag, day, total)
        select tag, ${today}, sum(case when sort_followers > 0 then sort_followers else 0 end) from account_tags
        where sort_followers > 0 group by tag`.execute(db);
    },
  };
}
