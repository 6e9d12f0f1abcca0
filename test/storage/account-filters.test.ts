// The account list's filters at 20,000 accounts, on both stores: every filter alone and combined,
// under every sort, answers what a walk of the whole table in JavaScript answers, rare matches at
// the far end of the order included, on the first page; a filter matching nothing answers an
// empty last page; paging visits every match once while accounts are added between pages; the
// counts are exact. The accounts come through the import's writer; their checks' values are set
// in bulk and their tag rows written by the tracker's own sync (syncTagRows).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { AccountSort, AccountStatus } from '../../src/domain/account.ts';
import type { ImportRow } from '../../src/domain/csv-import.ts';
import type { Platform } from '../../src/domain/platforms.ts';
import { CountChanges, recountAccounts } from '../../src/storage/account-counts-repo.ts';
import { syncTagRows } from '../../src/storage/account-tags-repo.ts';
import { countAccounts, listAccounts, type AccountFilter } from '../../src/storage/accounts-list.ts';
import { updateAccount } from '../../src/storage/accounts-repo.ts';
import { writeImport } from '../../src/storage/imports-repo.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { dialectName, freshStoreUrl, type TestStoreUrl } from '../helpers/store-url.ts';

const N = 20_000;
const SORTS: AccountSort[] = ['username', '-followers', '-followersChange7d', '-lastCheckedAt'];

interface Row {
  id: number;
  platform: string;
  username_key: string;
  status: string;
  tags: string;
  followers: number | null;
  followers_change_7d: number | null;
  last_checked_at: number | null;
}

const importRow = (key: string, platform: Platform, tags: string[]): ImportRow => ({
  line: 1,
  platform,
  username: key,
  key,
  tags,
  note: null,
});
const name = (i: number) => `fl_${String(i).padStart(5, '0')}${i % 10 === 3 ? '.bsky.social' : ''}`;
const tagsOf = (i: number) =>
  i % 40 === 0 ? ['common', 'mid'] : i % 2 === 0 ? ['common'] : i % 20 === 1 ? ['mid'] : [];

async function importRows(store: Store, rows: ImportRow[], id: string): Promise<void> {
  const meta = { id, actor: null, source: 'test', received: rows.length, duplicates: 0, rejectedCount: 0 };
  await store.db
    .transaction()
    .execute((trx) => writeImport(trx, store.caps, rows, { ...meta, startedAt: 1, now: () => 1 }));
}

/** Sort value of a row as the list defines it (missing numbers last). */
function valueOf(row: Row, sort: AccountSort): string | number {
  if (sort === 'username') return row.username_key;
  if (sort === '-followers') return row.followers ?? -1;
  if (sort === '-followersChange7d') return row.followers_change_7d ?? -9007199254740991;
  return row.last_checked_at ?? 0;
}

/** What the list must answer: the whole table, filtered and sorted in JavaScript. */
function expected(rows: readonly Row[], filter: AccountFilter, sort: AccountSort): Row[] {
  const matching = rows.filter(
    (r) =>
      (filter.status === undefined || r.status === filter.status) &&
      (filter.platform === undefined || r.platform === filter.platform) &&
      (filter.tag === undefined || (JSON.parse(r.tags) as string[]).includes(filter.tag)) &&
      (filter.prefix === undefined || r.username_key.startsWith(filter.prefix)),
  );
  const sign = sort === 'username' ? 1 : -1;
  return matching.sort((a, b) => {
    const [x, y] = [valueOf(a, sort), valueOf(b, sort)];
    return x !== y ? (x < y ? -sign : sign) : (a.id - b.id) * sign;
  });
}

describe(`account filters at ${N} accounts on ${dialectName}`, { timeout: 300_000 }, () => {
  let location: TestStoreUrl;
  let store: Store;
  let table: Row[];
  const readTable = async () => {
    table = (await store.db
      .selectFrom('accounts')
      .select([
        'id',
        'platform',
        'username_key',
        'status',
        'tags',
        'followers',
        'followers_change_7d',
        'last_checked_at',
      ])
      .where('untracked_at', 'is', null)
      .execute()) as Row[];
  };

  before(async () => {
    location = await freshStoreUrl();
    store = await openStore(location.url);
    // The rare ones first, so they have the smallest ids: last among ties in the descending sorts.
    const rare = [importRow('zz_a', 'x', ['rare']), importRow('zz_b.bsky.social', 'bluesky', ['rare'])];
    rare.push(importRow('zz_c', 'x', ['rare']));
    const rows = Array.from({ length: N }, (_, i) => importRow(name(i), i % 10 === 3 ? 'bluesky' : 'x', tagsOf(i)));
    await importRows(store, [...rare, ...rows], 'imp_fixture');
    // What checks would have written, in bulk: one in seven never checked (pending), some failing;
    // names from fl_1 on were checked long before the others.
    await sql`update accounts set
      status = case when id % 7 = 0 then 'pending' when id % 97 = 5 then 'error' else 'active' end,
      followers = case when id % 7 = 0 then null else (id * 7919) % 100000 end,
      followers_change_7d = case when id % 7 = 0 then null else ((id * 9973) % 20001) - 10000 end,
      last_checked_at = case when id % 7 = 0 then null
        else 1700000000000 + (case when username_key < 'fl_1' then 10000000000 else 0 end) + (id * 31) % 86400000 end
      where username_key like 'fl%'`.execute(store.db);
    // zz_a never checked (last in every descending sort), zz_b first in all of them, zz_c between.
    await sql`update accounts set status = 'active', followers = 9000000, followers_change_7d = 9000000,
      last_checked_at = 1900000000000 where username_key = 'zz_b.bsky.social'`.execute(store.db);
    await sql`update accounts set status = 'active', followers = 500, followers_change_7d = 0,
      last_checked_at = 1700000005000 where username_key = 'zz_c'`.execute(store.db);
    const ids = (await store.db.selectFrom('accounts').select('id').execute()).map((r) => r.id);
    await syncTagRows(store.db, store.caps, ids, new CountChanges());
    await recountAccounts(store.db);
    // Paused by an admin, through the admin's writer: at both ends of every order and in the middle.
    for (const key of ['zz_a', 'fl_10000'])
      await updateAccount(store.db, store.caps, { platform: 'x', key }, { paused: true }, 2);
    await updateAccount(store.db, store.caps, { platform: 'bluesky', key: 'zz_b.bsky.social' }, { paused: true }, 2);
    await readTable();
  });
  after(async () => {
    await store?.close();
    await location?.drop();
  });

  const statuses: (AccountStatus | undefined)[] = [undefined, 'paused', 'active'];
  const platforms: (Platform | undefined)[] = [undefined, 'bluesky'];
  const tags = [undefined, 'rare', 'common'];
  // zz: three matches; fl_00: a hundred (found by name, then sorted); fl_1: ten thousand (walked in the sort's order).
  const prefixes = [undefined, 'zz', 'fl_00', 'fl_1'];
  const filters: AccountFilter[] = statuses.flatMap((status) =>
    platforms.flatMap((platform) =>
      tags.flatMap((tag) => prefixes.map((prefix) => ({ status, platform, tag, prefix }))),
    ),
  );

  it('answers every filter, alone and combined, under every sort, with the first page and the exact count', async () => {
    for (const filter of filters) {
      const want = expected(table, filter, 'username');
      assert.equal(await countAccounts(store.reader, store.caps, filter), want.length, JSON.stringify(filter));
      for (const sort of SORTS) {
        const page = await listAccounts(store.reader, store.caps, filter, { sort, limit: 10 });
        const label = `${JSON.stringify(filter)} ${sort}`;
        assert.deepEqual(
          page.accounts.map((a) => a.username),
          expected(table, filter, sort)
            .slice(0, 10)
            .map((r) => r.username_key),
          label,
        );
        assert.equal(page.more, want.length > 10, label);
      }
    }
  });

  it('puts rare matches at the far end of the order on the first page', async () => {
    const last = async (filter: AccountFilter, sort: AccountSort) =>
      (await listAccounts(store.reader, store.caps, filter, { sort, limit: 10 })).accounts.at(-1)?.username;
    for (const sort of ['-followers', '-followersChange7d', '-lastCheckedAt'] as const) {
      assert.equal(await last({ status: 'paused' }, sort), 'zz_a', sort);
      assert.equal(await last({ tag: 'rare' }, sort), 'zz_a', sort);
      assert.equal(await last({ prefix: 'zz' }, sort), 'zz_a', sort);
    }
    assert.equal(await last({ status: 'paused' }, 'username'), 'zz_b.bsky.social');
    assert.equal(await last({ tag: 'rare', platform: 'x' }, 'username'), 'zz_c');
  });

  it('answers an empty last page and a count of 0 for a filter matching nothing', async () => {
    const nothing: AccountFilter[] = [
      { tag: 'nothing' },
      { prefix: 'nope' },
      { status: 'suspended' },
      { tag: 'rare', status: 'error' },
      { tag: 'common', prefix: 'zz' },
      { platform: 'bluesky', prefix: 'zz_a' },
    ];
    for (const filter of nothing) {
      assert.equal(await countAccounts(store.reader, store.caps, filter), 0);
      for (const sort of SORTS)
        assert.deepEqual(await listAccounts(store.reader, store.caps, filter, { sort, limit: 10 }), {
          accounts: [],
          last: null,
          more: false,
        });
    }
  });

  it('visits every match exactly once while accounts are added between pages, and keeps the counts exact', async () => {
    const cases: [AccountFilter, AccountSort, number][] = [
      [{ status: 'paused' }, '-followers', 1],
      [{ tag: 'mid' }, '-followersChange7d', 97],
      [{ platform: 'bluesky', status: 'pending' }, '-lastCheckedAt', 50],
      [{ prefix: 'fl_00' }, '-followers', 9],
      [{ prefix: 'fl_1' }, '-lastCheckedAt', 499],
      [{ prefix: 'fl_1', tag: 'common', platform: 'x' }, '-followers', 250],
      [{ status: 'error' }, 'username', 7],
    ];
    let added = 0;
    for (const [filter, sort, limit] of cases) {
      const before = expected(table, filter, sort).map((r) => r.username_key);
      const seen: string[] = [];
      let position: Awaited<ReturnType<typeof listAccounts>>['last'] = null;
      for (let more = true; more;) {
        const page = await listAccounts(store.reader, store.caps, filter, {
          sort,
          limit,
          after: position ?? undefined,
        });
        if (page.more) assert.equal(page.accounts.length, limit, 'only the last page is short');
        seen.push(...page.accounts.map((a) => a.username));
        ({ more } = page);
        position = page.last;
        // New accounts that match, sorting before and after the position (new ones are pending).
        const batch = [`fl_00${added}x`, `zz_new${added}`].map((key) => importRow(key, 'x', ['mid', 'common']));
        await importRows(store, batch, `imp_more${added++}`);
      }
      assert.equal(new Set(seen).size, seen.length, `${JSON.stringify(filter)} ${sort}: an account came twice`);
      const missed = before.filter((key) => !seen.includes(key));
      assert.deepEqual(missed, [], `${JSON.stringify(filter)} ${sort}: matches never shown`);
    }
    await readTable();
    for (const filter of [
      {},
      { status: 'pending' as const },
      { tag: 'mid' },
      { tag: 'common', platform: 'x' as const },
    ])
      assert.equal(await countAccounts(store.reader, store.caps, filter), expected(table, filter, 'username').length);
  });
});
