// Every filtered query of the account list and the event log reads its index, on a table without
// statistics (what a user meets right after an import, before any ANALYZE), on both stores: no
// full scan of a table, and no sort step where the index gives the order (the one sort is that of
// a prefix's few matches under another sort than the username's, accounts-list.ts). Plans only
// (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN), not how fast they run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type RawBuilder } from 'kysely';
import type { AccountSort, AccountStatus } from '../../src/domain/account.ts';
import type { Platform } from '../../src/domain/platforms.ts';
import { CountChanges, recountAccounts } from '../../src/storage/account-counts-repo.ts';
import { syncTagRows } from '../../src/storage/account-tags-repo.ts';
import {
  prefixMatches,
  prefixSortedKeys,
  sortedKeys,
  walkReach,
  type AccountFilter,
} from '../../src/storage/accounts-list.ts';
import { filteredEventSeqs, type EventQuery } from '../../src/storage/events-list.ts';
import { moversQuery } from '../../src/storage/movers-repo.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { dialectName, freshStoreUrl, type TestStoreUrl } from '../helpers/store-url.ts';

// Rows of each table. Without statistics PostgreSQL guesses a share of the table for each
// condition, so on a small table a few rows can look as cheap to sort as to read in order (a
// prefix through the unique (platform, username) index, an event type through a bitmap); its
// guesses grow with the table, so the plans are asserted at a size where they hold, as at a million.
const ROWS = 50_000;
const SORTS: AccountSort[] = ['username', '-followers', '-followersChange7d', '-lastCheckedAt'];

/** The plan's lines, and the indexes it reads. */
async function planOf(store: Store, query: RawBuilder<unknown>): Promise<{ text: string; indexes: Set<string> }> {
  if (dialectName === 'postgres') {
    const { rows } = await sql<Record<string, string>>`explain ${query}`.execute(store.reader);
    const text = rows.map((row) => String(row['QUERY PLAN'])).join('\n');
    return {
      text,
      indexes: new Set([...text.matchAll(/Index (?:Only )?Scan(?: Backward)? using (\w+)/g)].map((m) => m[1]!)),
    };
  }
  const { rows } = await sql<{ detail: string }>`explain query plan ${query}`.execute(store.reader);
  const text = rows.map((row) => row.detail).join('\n');
  return { text, indexes: new Set([...text.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)].map((m) => m[1]!)) };
}

const FULL_SCAN = dialectName === 'postgres' ? /Seq Scan|Bitmap Heap Scan/ : /\bSCAN (accounts|account_tags|events)\b/;
const SORT_STEP = dialectName === 'postgres' ? /(^|->)\s*(Incremental )?Sort\s+\(/m : /USE TEMP B-TREE/;

/** The plan reads only `allowed` indexes (at least one), never a whole table, and sorts nothing unless `sorts`. */
async function assertIndexed(store: Store, query: RawBuilder<unknown>, allowed: RegExp, label: string, sorts = false) {
  const plan = await planOf(store, query);
  assert.doesNotMatch(plan.text, FULL_SCAN, `${label}\n${plan.text}`);
  if (!sorts) assert.doesNotMatch(plan.text, SORT_STEP, `${label}\n${plan.text}`);
  assert.ok(plan.indexes.size > 0, `${label}: no index read\n${plan.text}`);
  for (const index of plan.indexes) assert.match(index, allowed, `${label}\n${plan.text}`);
}

describe(`filtered queries on a table without statistics on ${dialectName}`, () => {
  let location: TestStoreUrl;
  let store: Store;
  before(async () => {
    location = await freshStoreUrl();
    store = await openStore(location.url);
    // The rows an import and the first checks write, in one statement; a tenth on Bluesky, half tagged.
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
      insert into accounts (platform, username, username_key, status, tags, followers, last_checked_at,
        tracked_since, next_check_at, created_at, updated_at)
      select case when i % 10 = 3 then 'bluesky' else 'x' end, 'fl_' || i, 'fl_' || i,
        case when i % 50 = 0 then 'paused' else 'active' end, case when i % 2 = 0 then '["common"]' else '[]' end,
        i % 1000, i, 1, 1, 1, 1
      from n`.execute(store.db);
    const ids = (await store.db.selectFrom('accounts').select('id').execute()).map((r) => r.id);
    await syncTagRows(store.db, store.caps, ids, new CountChanges());
    await recountAccounts(store.db);
    // Events as the tracker and imports write them: most about an account, some of an import.
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
      insert into events (id, type, created_at, account_id, platform, username_key, data)
      select 'evt_' || i, case i % 3 when 0 then 'account.checked_first' when 1 then 'account.status_changed' else 'import.completed' end,
        i, case when i % 3 = 2 then null else i % 500 + 1 end, case when i % 3 = 2 then null else 'x' end,
        case when i % 3 = 2 then null else 'fl_' || (i % 500) end, '{}'
      from n`.execute(store.db);
  });
  after(async () => {
    await store?.close();
    await location?.drop();
  });

  it('finds the tables unanalysed, as right after an import', async () => {
    if (dialectName === 'postgres') {
      const { rows } = await sql<{ analysed: boolean }>`
        select bool_or(last_analyze is not null or last_autoanalyze is not null) as analysed
        from pg_stat_user_tables where relname in ('accounts', 'account_tags', 'events')`.execute(store.reader);
      assert.equal(rows[0]?.analysed, false);
    } else {
      const { rows } = await sql<{
        n: number;
      }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(store.reader);
      assert.equal(Number(rows[0]?.n), 0);
    }
  });

  const statuses: (AccountStatus | undefined)[] = [undefined, 'paused'];
  const platforms: (Platform | undefined)[] = [undefined, 'bluesky'];
  const filters: AccountFilter[] = statuses.flatMap((status) =>
    platforms.flatMap((platform) => [undefined, 'common'].map((tag) => ({ status, platform, tag }))),
  );
  const indexesOf = (filter: AccountFilter) => (filter.tag === undefined ? /^accounts_list_/ : /^account_tags_/);

  it('reads each filter, alone and combined, under each sort, in its index order, on the first page and after one', async () => {
    for (const filter of filters)
      for (const sort of SORTS)
        for (const position of [undefined, [sort === 'username' ? 'fl_5' : 500, 2_000] as const]) {
          const label = `${JSON.stringify(filter)} ${sort} after ${String(position)}`;
          for (const stretch of sortedKeys(store.caps, filter, sort, position))
            await assertIndexed(store, stretch(51), indexesOf(filter), label);
        }
  });

  it('reads a prefix from the username index under its sort, and under another through its bounded strategies', async () => {
    for (const base of filters) {
      const filter = { ...base, prefix: 'fl_1' };
      const label = JSON.stringify(filter);
      const name = filter.tag === undefined ? /^accounts_list_username$/ : /^account_tags_username$/;
      for (const stretch of sortedKeys(store.caps, filter, 'username', ['fl_15', 3]))
        await assertIndexed(store, stretch(51), name, label);
      await assertIndexed(store, prefixMatches(store.caps, filter), name, `${label} count`);
      for (const sort of SORTS.slice(1)) {
        // Few matches: found by name, then sorted (at most PREFIX_SORTED_MATCHES of them).
        await assertIndexed(
          store,
          prefixSortedKeys(store.caps, filter, sort, 51, [500, 3]),
          name,
          `${label} ${sort}`,
          true,
        );
        // Many: the sort's index walked in bounded steps.
        await assertIndexed(
          store,
          walkReach(store.caps, filter, sort, [500, 3]),
          indexesOf(filter),
          `${label} ${sort} reach`,
        );
        for (const stretch of sortedKeys(store.caps, filter, sort, [500, 3], [400, 9]))
          await assertIndexed(store, stretch(51), indexesOf(filter), `${label} ${sort} walk`);
      }
    }
  });

  it('reads the event log by type, platform and account from its indexes, in seq order', async () => {
    const queries: Omit<EventQuery, 'after' | 'limit'>[] = [
      { types: ['account.status_changed'] },
      { types: ['account.status_changed', 'import.completed'] },
      { platform: 'x' },
      { platform: 'bluesky', types: ['account.checked_first'] },
      { usernameKey: 'fl_7' },
      { usernameKey: 'fl_7', platform: 'x', types: ['account.checked_first'] },
    ];
    for (const query of queries)
      for (const after of [0, 1_000])
        await assertIndexed(
          store,
          filteredEventSeqs(store.caps, { ...query, after, limit: 100 }),
          /^events_(by_kind|by_account|unattached)$/,
          JSON.stringify(query),
        );
  });

  it("reads the Overview's movers, both ways over both windows, from their growth index", async () => {
    for (const window of ['1d', '7d'] as const)
      for (const direction of ['up', 'down'] as const)
        await assertIndexed(
          store,
          moversQuery(window, direction, 5),
          new RegExp(`^accounts_movers_${window}$`),
          `${window} ${direction}`,
        );
  });
});
