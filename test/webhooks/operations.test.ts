// Operating webhooks: the `webhooks` health check warns about a disabled endpoint or an old
// queue, and /metrics counts deliveries by outcome and shows the queue.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startReceiver } from './receiver.ts';
import { webhookWorld } from './helpers.ts';

test('health warns when a delivery waits too long and when perch disabled an endpoint; metrics show the queue', async (t) => {
  const w = await webhookWorld(t);
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const health = async () => (await w.app.inject({ method: 'GET', url: '/api/health' })).json();
  assert.equal((await health()).checks.webhooks.status, 'pass');

  const hook = await w.createWebhook({ url: receiver.url, events: ['*'] });
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  // Nobody delivers for 10 minutes.
  w.clock.advance(10 * 60_000);
  const old = await health();
  assert.equal(old.status, 'warn');
  assert.equal(old.checks.webhooks.pending, 1);
  assert.match(old.checks.webhooks.notes.join(' '), /due for 600 s/);
  const metrics = (await w.app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.match(metrics, /perch_webhook_queue_depth 1/);
  assert.match(metrics, /perch_webhook_oldest_pending_seconds 600/);

  receiver.answers = [410];
  await w.deliverer.runOnce();
  w.clock.advance(10_000);
  const disabled = await health();
  assert.equal(disabled.checks.webhooks.disabled, 1);
  assert.match(disabled.checks.webhooks.notes.join(' '), new RegExp(`${hook.id} \\(the endpoint answered 410 Gone\\)`));
  assert.ok(!JSON.stringify(disabled).includes(receiver.url), 'the public health says nothing about URLs');
});
