// The request counter and the failed-authentication throttle live in the store: what another
// process counted is seen here, old windows are pruned, and a counter that cannot be reached or is
// slow lets requests through (fails open) instead of failing them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatApiKey } from '../../src/domain/api-key-format.ts';
import { sharedRequestCounter, STALL_MS } from '../../src/limits/request-counter.ts';
import { createLogger } from '../../src/logger.ts';
import { countHits, recordAuthFailure, windowStartOf } from '../../src/storage/api-limits-repo.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.ts';
import type { Store } from '../../src/storage/store.ts';
import { freshStores } from '../helpers/store-url.ts';
import { build, type TestApp } from '../helpers/app.ts';

const me = (test: TestApp, apiKey: string) =>
  test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': apiKey } });
const badKey = () => formatApiKey(randomBytes(32));
/** The client address of injected requests. */
const CLIENT = '127.0.0.1';

/** Two processes' counters on one store, at a fixed moment; `incr(process, key, max)` counts one request. */
function twoProcesses(db: Kysely<Database>) {
  const log = createLogger('silent', { pretty: false });
  const clock = { now: () => Date.parse('2026-11-23T12:00:30Z') };
  const processes = [0, 1].map(() => sharedRequestCounter({ db, clock, log }));
  return async (process: number, key: string, max: number) => processes[process]!.place(key, 60_000, max);
}

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
    assert.equal(
      test.logs.filter((line) => line.includes('request counter unavailable')).length,
      1,
      'one warning per spell, not one per request',
    );
  });

  it('lets requests through while its count is stalled, and charges them, not a block per request, once it lands', async (t) => {
    const limit = 600;
    const test = await build(t, { rateLimitPerMinute: limit });
    const { apiKey, id } = await test.createKey('app');
    const window = windowStartOf(test.clock.now(), 60_000);
    const count = async () =>
      Number(
        (
          await test.deps.store.db
            .selectFrom('api_rate_counters')
            .select('hits')
            .where('bucket', '=', id)
            .executeTakeFirst()
        )?.hits ?? 0,
      );

    // Another process's 2 s write (an import) holds the counter (SQLite: the one writer;
    // PostgreSQL: the row's lock) while the key sends 20 requests a second.
    const sent: Promise<{ status: number; remaining: number; ms: number }>[] = [];
    await test.deps.store.db.transaction().execute(async (trx) => {
      await countHits(trx, id, window);
      for (let i = 0; i < 40; i += 1) {
        const started = Date.now();
        sent.push(
          me(test, apiKey).then((response) => ({
            status: response.statusCode,
            remaining: Number(response.headers['x-ratelimit-remaining']),
            ms: Date.now() - started,
          })),
        );
        await sleep(50);
      }
      // The answers do not wait for the write (the cap keeps a request that does from holding the test).
      await Promise.race([Promise.all(sent), sleep(1_500)]);
    });
    const answers = await Promise.all(sent);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
    );
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    assert.ok(slowest < 2 * STALL_MS, `none waits much longer than STALL_MS: the slowest answered after ${slowest} ms`);
    assert.ok(test.logs.some((line) => line.includes('request count took over')));

    // The late count lands and pays for the 40 requests: the other process's request, the 40, and
    // at most one block this process holds for the next ones; not a block per stalled request.
    for (let i = 0; i < 100 && (await count()) < 41; i += 1) await sleep(20);
    const counted = await count();
    assert.ok(counted >= 41 && counted <= 41 + limit / 16, `the shared count is ${counted}`);
    const next = await me(test, apiKey);
    assert.equal(next.statusCode, 200, 'the key is not locked out');
    assert.equal(
      next.headers['x-ratelimit-remaining'],
      String(limit - 42),
      'its place follows the 41 requests counted before it',
    );
    // Meanwhile the process counted on alone from what it last saw (nothing), one place each.
    assert.deepEqual(
      answers.map((answer) => answer.remaining).sort((x, y) => y - x),
      Array.from({ length: 40 }, (_, i) => limit - 1 - i),
    );
  });

  it('refuses, while its count is stalled, the requests past the limit that it let through itself', async (t) => {
    const test = await build(t, { rateLimitPerMinute: 5 });
    const { apiKey, id } = await test.createKey('app');
    const window = windowStartOf(test.clock.now(), 60_000);
    let statuses: number[] = [];
    await test.deps.store.db.transaction().execute(async (trx) => {
      // Holds the counter without counting (SQLite: the one writer; PostgreSQL: the row's lock).
      await countHits(trx, id, window, 0);
      const started = Date.now();
      for (let i = 0; i < 8; i += 1) statuses.push((await me(test, apiKey)).statusCode);
      assert.ok(Date.now() - started < 3 * STALL_MS, `answered after ${Date.now() - started} ms`);
    });
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
    // Once the count lands, the store holds the five requests let through.
    let counted = 0;
    for (let i = 0; i < 100 && counted < 5; i += 1) {
      counted = Number(
        (
          await test.deps.store.db
            .selectFrom('api_rate_counters')
            .select('hits')
            .where('bucket', '=', id)
            .executeTakeFirstOrThrow()
        ).hits,
      );
      if (counted < 5) await sleep(20);
    }
    assert.equal(counted, 5);
    statuses = [];
    for (let i = 0; i < 2; i += 1) statuses.push((await me(test, apiKey)).statusCode);
    assert.deepEqual(statuses, [429, 429]);
  });

  it('hands out blocks of counts to processes without letting more than the limit through', async (t) => {
    const [store] = (await freshStores(t)) as [Store];
    let writes = 0;
    const db = store.db.withPlugin({
      transformQuery: (args) => ((writes += args.node.kind === 'InsertQueryNode' ? 1 : 0), args.node),
      transformResult: async (args) => args.result,
    });
    const incr = twoProcesses(db);

    // Bursts of concurrent requests of one key, spread unevenly over both processes.
    const results = [];
    for (let round = 0; round < 40; round += 1)
      results.push(
        ...(await Promise.all(Array.from({ length: 20 }, (_, i) => incr(i % 3 === 0 ? 0 : 1, 'key_busy', 600)))),
      );
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

  it('keeps the limit exact across processes when counts are slow but the store is not stalled', async (t) => {
    const [store] = (await freshStores(t)) as [Store];
    // Every count takes 150 ms (a loaded machine, or writes of two processes taking turns): slow,
    // but well short of STALL_MS.
    const inserts = new WeakSet<object>();
    const db = store.db.withPlugin({
      transformQuery: (args) => (args.node.kind === 'InsertQueryNode' && inserts.add(args.queryId), args.node),
      transformResult: async (args) => (inserts.has(args.queryId) && (await sleep(150)), args.result),
    });
    const counters = twoProcesses(db);
    const incr = async (process: number) => (await counters(process, 'key_slow', 15)).current;

    // Ten rounds, each with one request to each process at the same time.
    const places: number[] = [];
    for (let round = 0; round < 10; round += 1) places.push(...(await Promise.all([incr(0), incr(1)])));
    const passed = places.filter((place) => place <= 15).sort((x, y) => x - y);
    assert.deepEqual(
      passed,
      Array.from({ length: 15 }, (_, i) => i + 1),
      'each of the 15 places is handed out once, and no request goes on without one',
    );
  });

  it('withholds the outcome of bad keys once other processes counted the client to its limit, and still serves its good key', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 5 });
    const { apiKey } = await test.createKey('app');
    // Another process counted five failures of this client in this minute.
    const window = windowStartOf(test.clock.now(), 60_000);
    for (let i = 0; i < 5; i += 1) await recordAuthFailure(test.deps.store.db, CLIENT, window);

    const guess = await me(test, badKey());
    assert.equal(guess.statusCode, 429);
    assert.equal(guess.json().code, 'too_many_auth_failures');
    assert.equal(guess.headers['retry-after'], '60');
    assert.equal((await me(test, apiKey)).statusCode, 200, 'only failures are throttled: a valid key is served');

    test.clock.advance(60_000);
    assert.equal((await me(test, badKey())).statusCode, 401, 'a new minute starts counting afresh');
  });

  it('keeps serving a valid key while another client fails 100 times from the same address', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 20 });
    const { apiKey } = await test.createKey('app');
    const failures: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      failures.push((await me(test, badKey())).statusCode);
      if (i % 10 === 9) assert.equal((await me(test, apiKey)).statusCode, 200, `the good key after ${i + 1} failures`);
    }
    assert.deepEqual(failures, [...Array.from({ length: 20 }, () => 401), ...Array.from({ length: 80 }, () => 429)]);
    // Once throttled, this process no longer writes each failure: the store holds the limit reached, not 100.
    const row = await test.deps.store.db
      .selectFrom('auth_failures')
      .select('failures')
      .where('client', '=', CLIENT)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.failures), 20);
  });

  it('counts IPv6 clients per /64', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 2 });
    const from = (remoteAddress: string) =>
      test.app.inject({ method: 'GET', url: '/api/me', remoteAddress, headers: { 'x-api-key': badKey() } });
    assert.equal((await from('2001:db8:1:2::1')).statusCode, 401);
    assert.equal((await from('2001:db8:1:2:ffff:ffff:ffff:9')).statusCode, 401);
    assert.equal(
      (await from('2001:0db8:0001:0002:abcd::7')).statusCode,
      429,
      'a third address of the same /64 is the same client',
    );
    assert.equal((await from('2001:db8:1:3::1')).statusCode, 401, 'the next /64 is another client');
    assert.equal((await from('::ffff:10.0.0.1')).statusCode, 401);
  });

  it('warns once when requests carry X-Forwarded-For but no proxy is trusted', async (t) => {
    const test = await build(t);
    for (let i = 0; i < 3; i += 1)
      await test.app.inject({ method: 'GET', url: '/api/health/live', headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(test.logs.filter((line) => line.includes('TRUST_PROXY is off')).length, 1);
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
    assert.ok(
      rows.length >= 2 && rows.every((start) => start === now),
      `only this minute's windows are left: ${rows.join(', ')}`,
    );
  });
});
