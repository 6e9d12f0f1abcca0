// The failed-authentication throttle when its count is held up behind another writer (an import
// holding SQLite's one writer, a transaction holding the client's row on PostgreSQL): the failure
// is answered at once, and the count, when it lands, still throttles the client.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { StoreFailureThrottle } from '../../src/limits/failure-throttle.ts';
import { STALL_MS } from '../../src/limits/request-blocks.ts';
import { authFailures, recordAuthFailure, windowStartOf } from '../../src/storage/api-limits-repo.ts';
import { freshStores } from '../helpers/store-url.ts';

describe('failed-authentication throttle', () => {
  it(
    'answers a failure whose count waits for the writer at once, and throttles the client when it lands',
    { timeout: 30_000 },
    async (t) => {
      const [store] = await freshStores(t, 1);
      const now = Date.parse('2026-11-23T12:00:10.000Z');
      const window = windowStartOf(now, 60_000);
      const warnings: string[] = [];
      const throttle = new StoreFailureThrottle(store!.db, 2, {
        warn: (_o, message) => warnings.push(String(message)),
      });
      // (The wait runs on an unref'd timer: this keeps the test's event loop alive, as a server's socket would.)
      const alive = setInterval(() => {}, 100);
      t.after(() => clearInterval(alive));
      let release = () => {};
      let holding = () => {};
      const held = new Promise<void>((resolve) => (holding = resolve));
      const writer = store!.db.transaction().execute(async (trx) => {
        await recordAuthFailure(trx, 'client-a', window);
        holding();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await held;

      const started = performance.now();
      assert.equal(await throttle.recordFailure('client-a', now), 0, 'answered as a plain failure');
      const took = performance.now() - started;
      assert.ok(took >= STALL_MS - 50 && took < STALL_MS + 2_000, `answered after ${Math.round(took)} ms`);
      assert.ok(warnings.some((w) => /took over/.test(w)));

      release();
      await writer;
      // The held count (1) and the stalled one (2) reach the limit of 2: THROTTLED.
      for (let i = 0; i < 100 && (await authFailures(store!.db, 'client-a', window)) < 2; i++) await delay(10);
      await delay(20);
      assert.ok((await throttle.recordFailure('client-a', now)) > 0, 'throttled once the count landed');
      assert.equal(await authFailures(store!.db, 'client-a', window), 2, 'known to be throttled: no further write');
    },
  );
});
