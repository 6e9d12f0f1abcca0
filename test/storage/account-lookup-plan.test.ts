// PostgreSQL reads one account by name through the unique (platform, username_key) index, even
// on a table just filled and never analysed (what a user meets right after an import). Plans only
// (EXPLAIN, not ANALYZE): the test asserts which index the planner picks, not how fast it is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { selectAccountByName, selectAccountsByName } from '../../src/storage/accounts-repo.ts';
import { selectAccountsByPairs } from '../../src/storage/gathered-account-lookups.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { dialectName, freshStoreUrl, testStoreOptions, type TestStoreUrl } from '../helpers/store-url.ts';

const ROWS = 20_000;
const UNIQUE_INDEX = 'accounts_platform_username_key';

async function planOf(query: { explain(): Promise<Record<string, unknown>[]> }): Promise<string> {
  const rows = await query.explain();
  return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
}

describe('account lookups by name on a table without statistics', { skip: dialectName !== 'postgres' }, () => {
  let location: TestStoreUrl;
  let store: Store;
  before(async () => {
    location = await freshStoreUrl();
    store = await openStore(location.url, testStoreOptions);
    // The rows an import writes: new, pending, tracked; no ANALYZE afterwards.
    await sql`insert into accounts (platform, username, username_key, status, tracked_since, next_check_at, created_at, updated_at)
      select 'x', 'Fresh' || i, 'fresh' || i, 'pending', 1, 1, 1, 1 from generate_series(1, ${ROWS}::integer) as i`.execute(
      store.db,
    );
  });
  after(async () => {
    await store.close();
    await location.drop();
  });

  it('finds the table unanalysed, as right after an import', async () => {
    const { rows } = await sql<{ analysed: boolean }>`
      select (last_analyze is not null or last_autoanalyze is not null) as analysed
      from pg_stat_user_tables where relid = 'accounts'::regclass`.execute(store.reader);
    assert.equal(rows[0]?.analysed, false);
  });

  it('reads one account through the unique index on (platform, username_key)', async () => {
    const plan = await planOf(selectAccountByName(store.reader, { platform: 'x', key: 'fresh12345' }));
    assert.match(plan, new RegExp(`Index Scan using ${UNIQUE_INDEX}`), plan);
    assert.doesNotMatch(plan, /accounts_by_status|Seq Scan/, plan);
  });

  it('reads a batch through the same index', async () => {
    const refs = ['fresh1', 'fresh777', 'fresh19999'].map((key) => ({ platform: 'x' as const, key }));
    const plan = await planOf(selectAccountsByName(store.reader, refs));
    assert.match(plan, new RegExp(UNIQUE_INDEX), plan);
    assert.doesNotMatch(plan, /accounts_by_status|Seq Scan/, plan);
  });

  it('reads lookups gathered into one statement through the same index, one probe per name', async () => {
    const { textPairs } = store.caps;
    assert.ok(textPairs !== null, 'PostgreSQL gathers lookups');
    const keys = Array.from({ length: 64 }, (_, i) => `fresh${i * 300 + 1}`);
    const query = selectAccountsByPairs(
      store.reader,
      textPairs,
      keys.map(() => 'x'),
      keys,
    );
    const plan = await planOf(query);
    assert.match(plan, new RegExp(`Index Scan using ${UNIQUE_INDEX}`), plan);
    assert.match(plan, /Nested Loop/, plan);
    assert.doesNotMatch(plan, /accounts_by_status|Seq Scan/, plan);
    const rows = await query.execute();
    assert.deepEqual(rows.map((row) => row.username_key).sort(), [...keys].sort());
  });
});
