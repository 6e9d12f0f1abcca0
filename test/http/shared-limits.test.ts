// The request counter and the failed-authentication throttle live in the store: what another
// process counted is seen here, old windows are pruned, and a counter that cannot be reached or is
// slow lets requests through (fails open) instead of failing them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatApiKey } from '../../src/domain/api-key-format.ts';
import { sharedRateLimitStore } from '../../src/http/rate-limit-store.ts';
import { createLogger } from '../../src/logger.ts';
import { countHits, recordAuthFailure, windowStartOf } from '../../src/storage/api-limits-repo.ts';
import { openStore } from '../../src/storage/store.ts';
import { freshStoreUrl } from '../helpers/store-url.ts';
import { build, type TestApp } from '../helpers/app.ts';

const me = (test: TestApp, apiKey: string) => test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': apiKey } });
const badKey = () => formatApiKey(randomBytes(32));
/** The client address of injected requests. */
const CLIENT = '127.0.0.1';

describe('shared limits', () => {
  it('counts requests another process made with the same key', async (t) => {
    const test = await build(t, { rateLimitPerMinute: 3 });
    const { apiKey, id } = await test.createKey('app');
    // Another process counted two requests of this key in this minute.
    await countHits(test.deps.store.db, id, windowStartOf(test.clock.now(), 60_000), 2);
    assert.equal((await me(test, apiKey)).statusCode, 200);
    const refused = await me(test, apiKey);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().code, 'rate_limited');
    assert.equal(refused.headers['retry-after'], '60', 'the window is the clock minute');
    test.clock.advance(60_000);
    assert.equal((await me(test, apiKey)).statusCode, 200, 'the next minute starts afresh');
  });

  it('lets requests through, with a warning, when the request counter fails', async (t) => {
    const test = await build(t, { rateLimitPerMinute: 1 });
    const { apiKey } = await test.createKey('app');
    await test.deps.store.db.schema.dropTable('api_rate_counters').execute();
    for (let i = 0; i < 3; i += 1) assert.equal((await me(test, apiKey)).statusCode, 200);
    assert.equal(test.logs.filter((line) => line.includes('request counter unavailable')).length, 1, 'one warning per spell, not one per request');
  });

  it('lets a request through rather than wait long for its count', async (t) => {
    const test = await build(t, { rateLimitPerMinute: 3 });
    const { apiKey, id } = await test.createKey('app');
    const window = windowStartOf(test.clock.now(), 60_000);
    await test.deps.store.db.transaction().execute(async (trx) => {
      // Another process's long write holds the counter (SQLite: the one writer; PostgreSQL: the row's lock).
      await countHits(trx, id, window);
      const started = Date.now();
      const response = await me(test, apiKey);
      assert.equal(response.statusCode, 200);
      assert.ok(Date.now() - started < 1_000, `answered after ${Date.now() - started} ms`);
    });
    assert.ok(test.logs.some((line) => line.includes('request count took over')));
    // The late count still lands: with the other process's request, one of three is left.
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await me(test, apiKey)).statusCode);
    assert.deepEqual(statuses, [200, 429, 429]);
  });

  it('hands out blocks of counts to processes without letting more than the limit through', async (t) => {
    const location = await freshStoreUrl();
    const store = await openStore(location.url);
    t.after(async () => {
      await store.close();
      await location.drop();
    });
    const log = createLogger('silent', { pretty: false });
    const clock = { now: () => Date.parse('2026-11-23T12:00:30Z') };
    // Two processes' counters on one store; the plugin's options do not matter to them.
    let writes = 0;
    const db = store.db.withPlugin({
      transformQuery: (args) => ((writes += args.node.kind === 'InsertQueryNode' ? 1 : 0), args.node),
      transformResult: async (args) => args.result,
    });
    // The plugin calls incr with the window and the limit too (its typings leave them out).
    type Counter = { incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void };
    const processes = [0, 1].map(() => new (sharedRateLimitStore({ db, clock, log }))({}) as unknown as Counter);
    const incr = (process: number, key: string, max: number) =>
      new Promise<{ current: number; ttl: number }>((resolve, reject) => processes[process]!.incr(key, (error, result) => (error ? reject(error) : resolve(result!)), 60_000, max));

    // Bursts of concurrent requests of one key, spread unevenly over both processes.
    const results = [];
    for (let round = 0; round < 40; round += 1) results.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => incr(i % 3 === 0 ? 0 : 1, 'key_busy', 600)))));
    const passed = results.filter((r) => r.current <= 600).map((r) => r.current);
    assert.equal(new Set(passed).size, passed.length, 'no count is handed out twice');
    assert.ok(passed.length <= 600 && passed.length >= 600 - 2 * 38, `${passed.length} of 600 passed`);
    assert.ok(results.every((r) => r.ttl === 30_000));
    assert.ok(writes < 150, `blocks, not one write per request: ${writes} writes`);
    // Past the limit, requests are refused without asking the store.
    const before = writes;
    await Promise.all(Array.from({ length: 50 }, (_, i) => incr(i % 2, 'key_busy', 600)));
    assert.equal(writes, before);
  });

  it('refuses a client whose failures other processes counted, and withholds the outcome of a failure past the limit', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 5 });
    const { apiKey } = await test.createKey('app');
    assert.equal((await me(test, apiKey)).statusCode, 200);
    // Another process counted five failures of this client in this minute.
    const window = windowStartOf(test.clock.now(), 60_000);
    for (let i = 0; i < 5; i += 1) await recordAuthFailure(test.deps.store.db, CLIENT, window);

    // This process saw the client clean a moment ago and believes it for up to a second (the
    // documented trade-off), but a bad key is counted at once and its outcome withheld.
    const guess = await me(test, badKey());
    assert.equal(guess.statusCode, 429);
    assert.equal(guess.json().code, 'too_many_auth_failures');
    assert.equal(guess.headers['retry-after'], '60');
    const good = await me(test, apiKey);
    assert.equal(good.statusCode, 429, 'refused until the minute ends, even with a good key');
    assert.equal(good.json().code, 'too_many_auth_failures');

    test.clock.advance(60_000);
    assert.equal((await me(test, apiKey)).statusCode, 200);
  });

  it('reads the failures of a client it saw clean once that belief has expired', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 5 });
    const { apiKey } = await test.createKey('app');
    assert.equal((await me(test, apiKey)).statusCode, 200);
    const window = windowStartOf(test.clock.now(), 60_000);
    for (let i = 0; i < 5; i += 1) await recordAuthFailure(test.deps.store.db, CLIENT, window);
    assert.equal((await me(test, apiKey)).statusCode, 200, 'within a second of being seen clean');
    test.clock.advance(1_000);
    const refused = await me(test, apiKey);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '59');
  });

  it('answers 401, not 500, when failed authentications cannot be counted', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 1 });
    const { apiKey } = await test.createKey('app');
    await test.deps.store.db.schema.dropTable('auth_failures').execute();
    for (let i = 0; i < 3; i += 1) assert.equal((await me(test, badKey())).statusCode, 401);
    assert.equal((await me(test, apiKey)).statusCode, 200);
    assert.ok(test.logs.some((line) => line.includes('failed-authentication counts unavailable')));
  });

  it('prunes the windows of past minutes', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 100 });
    const { apiKey } = await test.createKey('app');
    assert.equal((await me(test, badKey())).statusCode, 401);
    assert.equal((await me(test, apiKey)).statusCode, 200);
    test.clock.advance(3 * 60_000);
    assert.equal((await me(test, badKey())).statusCode, 401);
    assert.equal((await me(test, apiKey)).statusCode, 200);
    const { db } = test.deps.store;
    const now = windowStartOf(test.clock.now(), 60_000);
    let rows: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const counters = await db.selectFrom('api_rate_counters').select('window_start').execute();
      const failures = await db.selectFrom('auth_failures').select('window_start').execute();
      rows = [...counters, ...failures].map((row) => Number(row.window_start));
      if (rows.every((start) => start === now)) break;
      await sleep(25);
    }
    assert.ok(rows.length >= 2 && rows.every((start) => start === now), `only this minute's windows are left: ${rows.join(', ')}`);
  });
});
