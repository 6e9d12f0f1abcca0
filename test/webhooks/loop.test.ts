// The deliverer on the shared polling loop, on real timers and real HTTP: idle, it sleeps until
// notify() (not until its poll); stop() waits for the delivery in flight, and nothing is claimed after.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { systemClock } from '../../src/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { createDeliverer } from '../../src/webhooks/create-deliverer.ts';
import { startReceiver } from './receiver.ts';
import { webhookWorld } from './helpers.ts';

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await delay(10);
  }
}

test('an idle deliverer wakes on notify(), and stop() waits for the delivery in flight', async (t) => {
  const w = await webhookWorld(t);
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const hook = await w.createWebhook({ url: receiver.url, events: ['*'] });
  const sleeps: number[] = [];
  const deliverer = createDeliverer(w.config, w.deps.store, createLogger('silent'), w.deps.keyHashSecret, {
    // The app's time, real waits (recorded): a poll of a minute, so only notify() can wake it soon.
    clock: { now: w.clock.now, sleep: (ms, signal) => (sleeps.push(ms), systemClock.sleep(ms, signal)) },
    pollMs: 60_000,
  });
  t.after(() => deliverer.stop());
  assert.equal(deliverer.status().running, false);
  deliverer.start();
  await until(() => sleeps.length === 1, 'the deliverer waits');
  assert.deepEqual(sleeps, [60_000], 'nothing due: it waits its poll');
  assert.equal(deliverer.status().running, true);

  receiver.hang = true;
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  await delay(150);
  assert.equal(receiver.received.length, 0, 'still asleep: nothing woke it');
  deliverer.notify();
  await until(() => receiver.received.length === 1, 'the delivery arrives');
  assert.equal(deliverer.status().inFlight, 1);

  let stopped = false;
  const stopping = deliverer.stop().then(() => (stopped = true));
  await delay(100);
  assert.equal(stopped, false, 'stop() waits for the delivery in flight');
  receiver.release();
  await stopping;
  const row = await w.deps.store.db.selectFrom('webhook_deliveries').select('status').executeTakeFirstOrThrow();
  assert.equal(row.status, 'delivered', 'its outcome was written before stop() resolved');
  assert.deepEqual(
    { running: deliverer.status().running, inFlight: deliverer.status().inFlight },
    { running: false, inFlight: 0 },
  );

  receiver.hang = false;
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  deliverer.notify();
  await delay(150);
  assert.equal(receiver.received.length, 1, 'a stopped deliverer claims nothing');
});
