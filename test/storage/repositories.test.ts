// The repository functions against a real store: SQLite by default, PostgreSQL when
// TEST_DATABASE_URL is set (CI runs both). Same tests, same expectations, either dialect.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { ImportRow } from '../../src/domain/csv-import.ts';
import { CountChanges } from '../../src/storage/account-counts-repo.ts';
import { syncTagRows } from '../../src/storage/account-tags-repo.ts';
import { listAccounts } from '../../src/storage/accounts-list.ts';
import { findAccount, updateAccount, untrackAccount } from '../../src/storage/accounts-repo.ts';
import {
  authFailures,
  countHits,
  pruneAuthFailures,
  pruneRateCounters,
  recordAuthFailure,
  windowStartOf,
} from '../../src/storage/api-limits-repo.ts';
import { countActiveAdminKeys, findApiKeyByHash, insertApiKey, revokeApiKey } from '../../src/storage/api-keys-repo.ts';
import type { DialectCapabilities } from '../../src/storage/dialects/capabilities.ts';
import { openSqlite, sqliteCapabilities } from '../../src/storage/dialects/sqlite.ts';
import { listImports } from '../../src/storage/imports-list.ts';
import { writeImport as writeInTransaction, type ImportMeta } from '../../src/storage/imports-repo.ts';
import type { Database } from '../../src/storage/schema.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { dialectName, freshStoreUrl, testStoreOptions, type TestStoreUrl } from '../helpers/store-url.ts';

const row = (name: string, extra: Partial<ImportRow> = {}): ImportRow => ({
  line: 1,
  platform: 'x',
  username: name,
  key: name.toLowerCase(),
  tags: [],
  note: null,
  ...extra,
});
/** writeImport runs inside its caller's transaction; here the test is the caller. */
const writeImport = (db: Kysely<Database>, caps: DialectCapabilities, rows: readonly ImportRow[], meta: ImportMeta) =>
  db.transaction().execute((trx) => writeInTransaction(trx, caps, rows, meta));
const meta = (id: string, now = 1_000) => ({
  id,
  actor: 'key_test',
  source: 'test',
  received: 0,
  duplicates: 0,
  rejectedCount: 0,
  startedAt: now,
  now: () => now,
});

describe(`repositories on ${dialectName}`, () => {
  let location: TestStoreUrl;
  let store: Store;
  before(async () => {
    location = await freshStoreUrl();
    store = await openStore(location.url, testStoreOptions);
  });
  after(async () => {
    await store.close();
    await location.drop();
  });

  it('migrates idempotently', async () => {
    const again = await openStore(location.url);
    await again.close();
    assert.equal(await store.integrityCheck(), 'ok');
  });

  it('writes an import in chunks and counts inserted, already tracked and reactivated', async () => {
    const rows = Array.from({ length: 2_500 }, (_, i) => row(`Repo${i}`));
    let progress = 0;
    const first = await writeImport(store.db, store.caps, rows, {
      ...meta('imp_a'),
      onProgress: (written) => (progress = written),
    });
    assert.deepEqual(first, { inserted: 2_500, reactivated: 0, alreadyTracked: 0 });
    assert.equal(progress, 2_500);
    assert.ok(await untrackAccount(store.db, store.caps, { platform: 'x', key: 'repo7' }, false, 2_000));
    const second = await writeImport(
      store.db,
      store.caps,
      [row('repo7'), row('REPO8'), row('fresh')],
      meta('imp_b', 3_000),
    );
    assert.deepEqual(second, { inserted: 1, reactivated: 1, alreadyTracked: 1 });
    const account = await findAccount(store.reader, { platform: 'x', key: 'repo7' });
    assert.equal(account?.username, 'Repo7', 'the first spelling is kept');
    assert.equal(account?.tracking.trackedSince, new Date(3_000).toISOString());
    const imports = await listImports(store.reader, { limit: 10 });
    assert.deepEqual(
      imports.map((i) => [i.id, i.inserted]),
      [
        ['imp_b', 1],
        ['imp_a', 2_500],
      ],
    );
  });

  it('commits nothing when a later chunk fails', async () => {
    const count = async () =>
      Number(
        (
          await store.db
            .selectFrom('accounts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const rows = Array.from({ length: 1_500 }, (_, i) => row(`atomic${i}`));
    await assert.rejects(
      writeImport(store.db, store.caps, rows, {
        ...meta('imp_fail'),
        onProgress: (written) => {
          if (written > 1_000) throw new Error('disk full');
        },
      }),
      /disk full/,
    );
    assert.equal(await count(), before);
    assert.equal(
      (await listImports(store.reader, { limit: 100 })).some((i) => i.id === 'imp_fail'),
      false,
    );
  });

  it('lists with filters, sorts and keyset positions', async () => {
    await writeImport(
      store.db,
      store.caps,
      [
        row('tagged1', { tags: ['vip', 'press'] }),
        row('tagged2', { tags: ['press'] }),
        row('b.bsky.social', { platform: 'bluesky' }),
      ],
      meta('imp_c'),
    );
    await store.db.updateTable('accounts').set({ followers: 50 }).where('username_key', '=', 'tagged2').execute();
    await store.db.updateTable('accounts').set({ followers: 10 }).where('username_key', '=', 'tagged1').execute();
    // What the tracker's write does after its update: the tag rows take the new sort values.
    const tagged = await store.db
      .selectFrom('accounts')
      .select('id')
      .where('username_key', 'like', 'tagged%')
      .execute();
    await syncTagRows(
      store.db,
      store.caps,
      tagged.map((a) => a.id),
      new CountChanges(),
    );
    const vip = await listAccounts(store.reader, store.caps, { tag: 'vip' }, { sort: 'username', limit: 10 });
    assert.deepEqual(
      vip.accounts.map((a) => a.username),
      ['tagged1'],
    );
    const press = await listAccounts(store.reader, store.caps, { tag: 'press' }, { sort: '-followers', limit: 1 });
    assert.deepEqual(
      press.accounts.map((a) => a.username),
      ['tagged2'],
    );
    assert.ok(press.more && press.last);
    const next = await listAccounts(
      store.reader,
      store.caps,
      { tag: 'press' },
      { sort: '-followers', limit: 1, after: press.last },
    );
    assert.deepEqual(
      next.accounts.map((a) => a.username),
      ['tagged1'],
    );
    assert.equal(next.more, false);
    const prefix = await listAccounts(store.reader, store.caps, { prefix: 'repo1_' }, { sort: 'username', limit: 5 });
    assert.deepEqual(prefix.accounts, [], '_ is literal in a prefix, not a wildcard');
    const bluesky = await listAccounts(
      store.reader,
      store.caps,
      { platform: 'bluesky' },
      { sort: 'username', limit: 5 },
    );
    assert.deepEqual(
      bluesky.accounts.map((a) => a.username),
      ['b.bsky.social'],
    );
  });

  it('pauses and resumes through updateAccount', async () => {
    const paused = await updateAccount(
      store.db,
      store.caps,
      { platform: 'x', key: 'tagged1' },
      { paused: true },
      5_000,
    );
    assert.equal(paused?.status, 'paused');
    const resumed = await updateAccount(
      store.db,
      store.caps,
      { platform: 'x', key: 'tagged1' },
      { paused: false, note: 'hello' },
      6_000,
    );
    assert.equal(resumed?.status, 'pending');
    assert.equal(resumed?.note, 'hello');
    assert.equal(
      await updateAccount(store.db, store.caps, { platform: 'x', key: 'nobody' }, { paused: true }, 6_000),
      null,
    );
  });

  it('stores keys by hash and counts active admins', async () => {
    const base = { start: 'perch_abcd', username: 'u', name: null, createdBy: null, now: 1_000 };
    await insertApiKey(store.db, { ...base, id: 'key_a', keyHash: 'hash-a', role: 'admin', expiresAt: null });
    await insertApiKey(store.db, { ...base, id: 'key_b', keyHash: 'hash-b', role: 'admin', expiresAt: 1_500 });
    assert.equal(await countActiveAdminKeys(store.db, 1_200), 2);
    assert.equal(await countActiveAdminKeys(store.db, 2_000), 1);
    assert.equal((await findApiKeyByHash(store.reader, 'hash-a'))?.id, 'key_a');
    assert.equal(await revokeApiKey(store.db, 'key_a', 3_000), true);
    assert.equal(await revokeApiKey(store.db, 'key_a', 3_000), false);
    await assert.rejects(
      insertApiKey(store.db, { ...base, id: 'key_c', keyHash: 'hash-a', role: 'app', expiresAt: null }),
      (error) => store.caps.isUniqueViolation(error),
    );
  });

  it('counts API hits and failed authentications per window, without losing concurrent ones, and prunes old windows', async () => {
    const window = windowStartOf(Date.parse('2026-11-23T12:00:42Z'), 60_000);
    assert.equal(window, Date.parse('2026-11-23T12:00:00Z'));
    const counts = await Promise.all(Array.from({ length: 40 }, () => countHits(store.db, 'key_busy', window)));
    assert.deepEqual(
      [...counts].sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, i) => i + 1),
      'each hit sees its own count',
    );
    assert.equal(await countHits(store.db, 'key_busy', window, 10), 50, 'a block of counts');
    assert.equal(await countHits(store.db, 'key_busy', window + 60_000), 1, 'a new window starts from one');
    assert.equal(await countHits(store.db, 'key_calm', window), 1, 'buckets are apart');

    assert.equal(await authFailures(store.reader, '203.0.113.9', window), 0);
    assert.deepEqual(
      await Promise.all([1, 2, 3].map(() => recordAuthFailure(store.db, '203.0.113.9', window))).then((n) => n.sort()),
      [1, 2, 3],
    );
    assert.equal(await authFailures(store.reader, '203.0.113.9', window), 3);
    assert.equal(await authFailures(store.reader, '203.0.113.9', window + 60_000), 0);

    await recordAuthFailure(store.db, '203.0.113.9', window + 60_000);
    await pruneRateCounters(store.db, window + 60_000);
    await pruneAuthFailures(store.db, window + 60_000);
    assert.deepEqual(
      await store.db.selectFrom('api_rate_counters').select(['bucket', 'window_start', 'hits']).execute(),
      [{ bucket: 'key_busy', window_start: window + 60_000, hits: 1 }],
    );
    assert.equal(await authFailures(store.reader, '203.0.113.9', window), 0);
    assert.equal(await authFailures(store.reader, '203.0.113.9', window + 60_000), 1);
  });
});

describe('SQLite write-ahead log', { skip: dialectName !== 'sqlite' }, () => {
  it('is checkpointed by the worker thread, not inside commits', async (t) => {
    const location = await freshStoreUrl();
    t.after(() => location.drop());
    const store = await openStore(location.url);
    await store.close();
    const sqlite = openSqlite(location.url.slice('file:'.length));
    t.after(() => sqlite.close());
    await writeImport(
      sqlite.writer,
      sqliteCapabilities,
      Array.from({ length: 5_000 }, (_, i) => row(`wal${i}`)),
      meta('imp_wal'),
    );
    const result = await sqlite.checkpoint();
    assert.ok(result && result.log > 0, 'the commit left its pages in the log');
    assert.equal(result.checkpointed, result.log, 'the worker moved them all');
    assert.equal(sqlite.integrityCheck(), 'ok');
  });
});
