// A large import into a SQLite file is written on a thread of its own, on its own connection
// (services/import-off-thread.ts): what it writes, how it fails, and that it still replays and
// reports progress as the import on the event loop does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { OFF_THREAD_ROWS } from '../../src/services/import-off-thread.ts';
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
    // Stamped with the app's clock, not the thread's.
    const record = await test.deps.store.db.selectFrom('imports').selectAll().executeTakeFirstOrThrow();
    assert.ok(record.created_at >= test.clock.now() && record.created_at < test.clock.now() + 60_000);
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
});
