// A large import into a SQLite file is written on a thread of its own, on its own connection
// (services/import-off-thread.ts): what it writes, how it fails, and that it still replays and
// reports progress as the import on the event loop does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { OFF_THREAD_ROWS, writeThreadTestHooks } from '../../src/services/import-off-thread.ts';
import { rowsFromText, rowsToText } from '../../src/services/import-rows-text.ts';
import type { ImportRow } from '../../src/domain/csv-import.ts';
import { ADMIN_KEY, build, countAccounts } from '../helpers/app.ts';
import { dialectName } from '../helpers/store-url.ts';

const skip = dialectName !== 'sqlite' && 'the write thread is for SQLite files';
const ROWS = OFF_THREAD_ROWS + 5_123;
const csv = `username\n${Array.from({ length: ROWS }, (_, i) => `big${i}`).join('\n')}\n`;

describe('a large import into a SQLite file', { skip }, () => {
  it('answers 503 and writes nothing while another process holds the write lock, then goes through once', async (t) => {
    const test = await build(t);
    const path = test.deps.store.sqliteFile?.path;
    assert.ok(path, 'a SQLite file store');
    const headers = { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv', 'idempotency-key': 'big-1' };
    const other = new BetterSqlite3(path);
    other.exec('begin immediate');
    const refused = await test.app.inject({ method: 'POST', url: '/api/admin/insert', headers, payload: csv });
    other.exec('rollback');
    other.close();
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.json().code, 'store_unavailable');
    assert.equal(await countAccounts(test), 0, 'all or nothing');

    const done = await test.app.inject({ method: 'POST', url: '/api/admin/insert', headers, payload: csv });
    assert.equal(done.statusCode, 200, done.body);
    const report = done.json();
    assert.equal(report.inserted, ROWS);
    assert.equal(report.accepted, ROWS);
    assert.equal(await countAccounts(test), ROWS);
    const progress = test.logs.filter((line) => line.includes('"import progress"')).map((line) => JSON.parse(line));
    assert.deepEqual(
      progress.map((line) => line.written),
      [100_000, ROWS],
    );
    // Stamped with the app's clock (which stands still), not the thread's.
    const record = await test.deps.store.db.selectFrom('imports').selectAll().executeTakeFirstOrThrow();
    assert.equal(record.created_at, test.clock.now());
    assert.equal(record.duration_ms, 0);
    const account = await test.deps.store.db
      .selectFrom('accounts')
      .select(['username', 'status', 'next_check_at'])
      .where('username_key', '=', 'big77')
      .executeTakeFirstOrThrow();
    assert.equal(account.status, 'pending');
    assert.equal(account.username, 'big77');

    const again = await test.app.inject({ method: 'POST', url: '/api/admin/insert', headers, payload: csv });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), report);
    const other2 = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers,
      payload: `${csv}one-more\n`,
    });
    assert.equal(other2.statusCode, 422, other2.body);
    assert.equal(other2.json().code, 'idempotency_key_mismatch');
  });

  it('sorts the rows on the thread before it takes the writer connection', { timeout: 120_000 }, async (t) => {
    const test = await build(t);
    t.after(() => delete writeThreadTestHooks.sorted);
    let sortedWhileHeld = false;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // Another write of this process holds the writer connection until the rows are sorted: an
    // import that took the connection before sorting would wait for it, and it for the sort.
    writeThreadTestHooks.sorted = () => {
      sortedWhileHeld = true;
      release();
    };
    const other = test.deps.store.db.connection().execute(() => held);
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      payload: csv,
    });
    await other;
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(sortedWhileHeld);
    assert.equal(await countAccounts(test), ROWS);
  });

  it('writes on the event loop instead if the thread ends before it was asked to write', async (t) => {
    const test = await build(t);
    t.after(() => delete writeThreadTestHooks.sorted);
    writeThreadTestHooks.sorted = (thread) => thread.exit();
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv', 'idempotency-key': 'big-gone' },
      payload: csv,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().inserted, ROWS);
    assert.equal(await countAccounts(test), ROWS);
  });

  it('answers 503 if the thread ends once asked to write, and the same import sent again goes through', async (t) => {
    const test = await build(t);
    t.after(() => delete writeThreadTestHooks.asked);
    writeThreadTestHooks.asked = (thread) => thread.exit();
    const request = {
      method: 'POST' as const,
      url: '/api/admin/insert',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv', 'idempotency-key': 'big-ended' },
      payload: csv,
    };
    const ended = await test.app.inject(request);
    assert.equal(ended.statusCode, 503, ended.body);
    assert.equal(ended.json().code, 'store_unavailable');
    delete writeThreadTestHooks.asked;
    const again = await test.app.inject(request);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().accepted, ROWS);
    assert.equal(await countAccounts(test), ROWS);
    // The writer connection is free again: another write goes through at once.
    await test.deps.store.db
      .updateTable('accounts')
      .set({ note: 'after' })
      .where('username_key', '=', 'big1')
      .execute();
  });

  it('writes what each row says: platform, tags, note and follower list, as the import on the event loop does', async (t) => {
    const test = await build(t);
    const lines = ['username,platform,tags,note,follower_list'];
    for (let i = 0; i < OFF_THREAD_ROWS; i += 1) lines.push(`plain${i},,,,`);
    lines.push('tagged1,x,press;founders,"a note, with a comma\nand a second line",yes');
    lines.push('carol.bsky.social,bluesky,friends,,no');
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      payload: `${lines.join('\n')}\n`,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().inserted, OFF_THREAD_ROWS + 2);
    const rows = await test.deps.store.db
      .selectFrom('accounts')
      .select(['platform', 'username', 'tags', 'note', 'follower_list'])
      .where('username', 'in', ['tagged1', 'carol.bsky.social', 'plain7'])
      .orderBy('username')
      .execute();
    assert.deepEqual(
      rows.map((row) => ({ ...row, tags: JSON.parse(row.tags) as string[] })),
      [
        { platform: 'bluesky', username: 'carol.bsky.social', tags: ['friends'], note: null, follower_list: 0 },
        { platform: 'x', username: 'plain7', tags: [], note: null, follower_list: null },
        {
          platform: 'x',
          username: 'tagged1',
          tags: ['press', 'founders'],
          note: 'a note, with a comma\nand a second line',
          follower_list: 1,
        },
      ],
    );
    const tagRows = await test.deps.store.db.selectFrom('account_tags').selectAll().execute();
    assert.equal(tagRows.length, 3, 'the tag rows are written with the accounts');
  });
});

describe('rows as text for the write thread', () => {
  it('come back as they went, whatever a note holds', () => {
    const rows: ImportRow[] = [
      { line: 2, platform: 'x', username: 'Jack', key: 'jack', tags: [], note: null },
      { line: 3, platform: 'bluesky', username: 'a.bsky.social', key: 'a.bsky.social', tags: ['x y', 'z'], note: '' },
      {
        line: 9,
        platform: 'x',
        username: 'b',
        key: 'b',
        tags: [],
        note: 'tab\there\nline "quoted"',
        followerList: false,
      },
      { line: 10, platform: 'x', username: 'c', key: 'c', tags: [], note: null, followerList: true },
    ];
    assert.deepEqual(rowsFromText(rowsToText(rows, 0, rows.length)), rows);
    assert.deepEqual(rowsFromText(rowsToText(rows, 1, 3)), rows.slice(1, 3));
    assert.deepEqual(rowsFromText(rowsToText(rows, 4, 9)), []);
  });
});
