// Exactly once per endpoint with two `perch worker` processes on one PostgreSQL: 5,000 events to
// three receivers, written before and while the workers run; when no attempt fails, each receiver
// gets each event once, and both workers take part.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { NewEvent } from '../../src/domain/events.ts';
import { systemClock } from '../../src/clock.ts';
import { createWebhook } from '../../src/services/webhooks.ts';
import { recordEvents } from '../../src/storage/events-repo.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { startWorker } from '../helpers/server-process.ts';
import { freshStoreUrl, POSTGRES_URL } from '../helpers/store-url.ts';
import { startReceiver } from './receiver.ts';

const EVENTS = 5_000;
const SECRET = 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz';

async function writeEvents(store: Store, count: number, from: number): Promise<void> {
  for (let i = 0; i < count; i += 250) {
    const batch: NewEvent[] = Array.from({ length: Math.min(250, count - i) }, (_, j) => ({
      type: 'import.completed',
      accountId: null,
      account: null,
      data: { n: from + i + j },
    }));
    await store.db.transaction().execute((trx) => recordEvents(trx, store.caps, batch, Date.now()));
  }
}

test(
  'two workers deliver 5,000 events to three receivers, each exactly once per endpoint',
  { skip: POSTGRES_URL === null ? 'needs PostgreSQL (TEST_DATABASE_URL)' : false, timeout: 300_000 },
  async (t) => {
    const location = await freshStoreUrl();
    const store = await openStore(location.url);
    t.after(async () => {
      await store.close();
      await location.drop();
    });
    const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    t.after(() => Promise.all(receivers.map((r) => r.close())));
    for (const receiver of receivers) {
      await createWebhook(
        { store, clock: systemClock, keyHashSecret: SECRET, allowPrivate: true },
        { url: receiver.url, events: ['*'] },
        'test',
      );
    }
    await writeEvents(store, EVENTS / 2, 0);
    const env = {
      DATABASE_URL: location.url,
      KEY_HASH_SECRET: SECRET,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_CONCURRENCY: '16',
      DATABASE_POOL_SIZE: '4',
    };
    const workers = await Promise.all([startWorker(env), startWorker(env)]);
    t.after(() => workers.forEach((w) => w.child.kill('SIGKILL')));
    await writeEvents(store, EVENTS / 2, EVENTS / 2);

    const deadline = Date.now() + 240_000;
    while (receivers.some((r) => r.received.length < EVENTS) && Date.now() < deadline) await delay(200);
    // Anything sent twice would arrive by now too.
    await delay(1_000);
    for (const receiver of receivers) {
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      assert.equal(new Set(ids).size, EVENTS, 'every event arrived');
      assert.equal(ids.length, EVENTS, 'and none twice');
    }
    const pending = await store.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '<>', 'delivered')
      .execute();
    assert.equal(pending.length, 0);
    for (const worker of workers) {
      const metrics = await (await fetch(`${worker.url}/metrics`)).text();
      const delivered = Number(/perch_webhook_deliveries_total\{outcome="delivered"\} (\d+)/.exec(metrics)?.[1] ?? 0);
      assert.ok(delivered > 0, 'both workers delivered');
    }
    await Promise.all(
      workers.map(async (w) => {
        w.child.kill('SIGTERM');
        assert.equal((await w.exited).code, 0);
      }),
    );
  },
);
