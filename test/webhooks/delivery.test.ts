// Webhook delivery end to end over real HTTP to local receivers, on the app's clock: signatures an
// independent verifier accepts, retries with one webhook-id stopping at the first 2xx, giving up,
// 410, rotation, filters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordEvents } from '../../src/storage/events-repo.ts';
import { ADMIN_KEY } from '../helpers/app.ts';
import { startReceiver, verifySignature } from './receiver.ts';
import { webhookWorld } from './helpers.ts';

const SECOND = 1_000;
const HOUR = 3_600_000;

test('a test event arrives signed per Standard Webhooks, and the deliveries log shows it', async (t) => {
  const w = await webhookWorld(t);
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const hook = await w.createWebhook({ url: receiver.url, events: ['*'], description: 'desk' });
  assert.match(hook.id, /^wh_/);
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
  const queued = await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  assert.equal(queued.statusCode, 202);
  assert.equal(await w.deliverer.runOnce(), 1);

  assert.equal(receiver.received.length, 1);
  const [got] = receiver.received;
  assert.ok(got && verifySignature(hook.secret, got), 'the signature verifies with the secret');
  assert.equal(verifySignature('whsec_' + Buffer.alloc(32, 1).toString('base64'), got), false, 'and not with another');
  assert.equal(got.headers['webhook-id'], queued.json().eventId);
  assert.equal(got.headers['webhook-timestamp'], String(Math.floor(w.clock.now() / 1000)));
  assert.equal(got.headers['content-type'], 'application/json');
  const body = JSON.parse(got.body);
  assert.deepEqual(Object.keys(body).sort(), ['data', 'id', 'timestamp', 'type']);
  assert.equal(body.type, 'webhook.test');
  assert.equal(body.data.webhookId, hook.id);
  // The secret is never stored as such.
  const row = await w.deps.store.db.selectFrom('webhooks').select('secret').executeTakeFirstOrThrow();
  assert.ok(!row.secret.includes(hook.secret.slice(6, 20)));
  const log = await w.admin('GET', `/api/admin/webhooks/${hook.id}/deliveries`);
  assert.deepEqual(
    log
      .json()
      .data.map((a: { attempt: number; statusCode: number; eventType: string; nextRetryAt: null }) => [
        a.attempt,
        a.statusCode,
        a.eventType,
        a.nextRetryAt,
      ]),
    [[1, 200, 'webhook.test', null]],
  );
  // The test event is in the event log too, but went to this endpoint only.
  const other = await startReceiver();
  t.after(() => other.close());
  await w.createWebhook({ url: other.url, events: ['*'] });
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  await w.deliverer.runOnce();
  assert.equal(other.received.length, 0);
});

test('retries carry the same webhook-id on the schedule with jitter and stop at the first 2xx', async (t) => {
  const w = await webhookWorld(t, { WEBHOOK_RETRY_SCHEDULE: '10s,1m,1h' });
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  receiver.answers = [500, 503];
  const hook = await w.createWebhook({ url: receiver.url, events: ['*'] });
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  await w.deliverer.runOnce();
  const first = (await w.admin('GET', `/api/admin/webhooks/${hook.id}/deliveries`)).json().data[0];
  const wait = Date.parse(first.nextRetryAt) - w.clock.now();
  assert.ok(wait >= 8 * SECOND && wait <= 12 * SECOND, `10 s ± 20 %, got ${wait}`);
  // Not due yet: nothing is sent.
  w.clock.advance(7 * SECOND);
  assert.equal(await w.deliverer.runOnce(), 0);
  w.clock.advance(6 * SECOND);
  assert.equal(await w.deliverer.runOnce(), 1);
  w.clock.advance(2 * 60 * SECOND);
  assert.equal(await w.deliverer.runOnce(), 1);
  w.clock.advance(2 * HOUR);
  assert.equal(await w.deliverer.runOnce(), 0, 'delivered: no more attempts');
  assert.equal(receiver.received.length, 3);
  assert.equal(
    new Set(receiver.received.map((r) => r.headers['webhook-id'])).size,
    1,
    'the same webhook-id every time',
  );
  assert.equal(new Set(receiver.received.map((r) => r.body)).size, 1, 'the same body every time');
  assert.ok(receiver.received.every((r) => verifySignature(hook.secret, r)));
  const log = (await w.admin('GET', `/api/admin/webhooks/${hook.id}/deliveries?limit=2`)).json();
  assert.deepEqual(
    log.data.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode]),
    [
      [3, 200],
      [2, 503],
    ],
  );
  const older = (await w.admin('GET', `/api/admin/webhooks/${hook.id}/deliveries?cursor=${log.nextCursor}`)).json();
  assert.deepEqual(
    older.data.map((a: { attempt: number; error: string }) => [a.attempt, a.error]),
    [[1, 'HTTP 500']],
  );
});

test('after the last retry a delivery has failed; 5 days of failures or a 410 disable the endpoint, and enabling restarts it', async (t) => {
  const w = await webhookWorld(t, { WEBHOOK_RETRY_SCHEDULE: '1m' });
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  receiver.answers = Array(10).fill(500);
  const hook = await w.createWebhook({ url: receiver.url, events: ['*'] });
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  await w.deliverer.runOnce();
  w.clock.advance(2 * 60 * SECOND);
  await w.deliverer.runOnce();
  w.clock.advance(HOUR);
  assert.equal(await w.deliverer.runOnce(), 0, 'two attempts, then failed');
  assert.equal((await w.admin('GET', `/api/admin/webhooks/${hook.id}/deliveries`)).json().data[0].nextRetryAt, null);
  assert.equal((await w.admin('GET', `/api/admin/webhooks/${hook.id}`)).json().enabled, true, 'not yet 5 days');
  w.clock.advance(5 * 24 * HOUR);
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  await w.deliverer.runOnce();
  const disabled = (await w.admin('GET', `/api/admin/webhooks/${hook.id}`)).json();
  assert.equal(disabled.enabled, false);
  assert.match(disabled.disabledReason, /5 days/);
  assert.equal((await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`)).statusCode, 409);

  receiver.answers = [];
  assert.equal((await w.admin('PATCH', `/api/admin/webhooks/${hook.id}`, { enabled: true })).json().enabled, true);
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  const before = receiver.received.length;
  await w.deliverer.runOnce();
  assert.equal(
    receiver.received.at(-1)?.headers['webhook-id'] !== undefined && receiver.received.length > before,
    true,
  );

  receiver.answers = [410];
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  await w.deliverer.runOnce();
  const gone = (await w.admin('GET', `/api/admin/webhooks/${hook.id}`)).json();
  assert.equal(gone.enabled, false);
  assert.match(gone.disabledReason, /410/);
});

test('a rotated secret: both sign for 24 h, then only the new one', async (t) => {
  const w = await webhookWorld(t);
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const hook = await w.createWebhook({ url: receiver.url, events: ['*'] });
  const rotated = (await w.admin('POST', `/api/admin/webhooks/${hook.id}/rotate-secret`)).json();
  assert.notEqual(rotated.secret, hook.secret);
  assert.equal(Date.parse(rotated.previousSecretUntil) - w.clock.now(), 24 * HOUR);
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  await w.deliverer.runOnce();
  const during = receiver.received.at(-1)!;
  assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
  assert.ok(verifySignature(hook.secret, during) && verifySignature(rotated.secret, during));
  w.clock.advance(24 * HOUR + SECOND);
  await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
  await w.deliverer.runOnce();
  const after = receiver.received.at(-1)!;
  assert.ok(verifySignature(rotated.secret, after));
  assert.equal(verifySignature(hook.secret, after), false);
});

test('a second rotation within 24 h keeps the first replaced secret signing; Idempotency-Key makes a retry rotate once', async (t) => {
  const w = await webhookWorld(t);
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const hook = await w.createWebhook({ url: receiver.url, events: ['*'] });
  const rotate = (key?: string) =>
    w.app.inject({
      method: 'POST',
      url: `/api/admin/webhooks/${hook.id}/rotate-secret`,
      headers: { 'x-api-key': ADMIN_KEY, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    });
  const first = (await rotate()).json();
  w.clock.advance(HOUR);
  const second = await rotate('rotation-2');
  const retried = await rotate('rotation-2');
  assert.equal(retried.statusCode, 200);
  assert.equal(retried.headers['idempotent-replayed'], 'true');
  assert.equal(retried.json().secret, second.json().secret, 'the retry answers as the first did, no third secret');
  const send = async () => {
    await w.admin('POST', `/api/admin/webhooks/${hook.id}/test`);
    await w.deliverer.runOnce();
    return receiver.received.at(-1)!;
  };
  // Three secrets sign: the original (replaced an hour ago), the first rotation's and the current one.
  const during = await send();
  assert.equal(String(during.headers['webhook-signature']).split(' ').length, 3);
  for (const secret of [hook.secret, first.secret, second.json().secret])
    assert.ok(verifySignature(secret, during), 'each secret younger than 24 h signs');
  // Each stops 24 h after it was replaced.
  w.clock.advance(23 * HOUR + SECOND);
  const later = await send();
  assert.equal(verifySignature(hook.secret, later), false, 'the original, replaced 24 h ago, no longer signs');
  assert.ok(verifySignature(first.secret, later) && verifySignature(second.json().secret, later));
});

test('endpoints get the types they subscribe to, and tags limit them to accounts with those tags', async (t) => {
  const w = await webhookWorld(t);
  const [vip, imports, renames] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
  t.after(() => Promise.all([vip!.close(), imports!.close(), renames!.close()]));
  await w.createWebhook({ url: vip!.url, events: ['*'], tags: ['vip'] });
  await w.createWebhook({ url: imports!.url, events: ['import.completed'] });
  await w.createWebhook({ url: renames!.url, events: ['account.renamed'] });
  const insert = await w.app.inject({
    method: 'POST',
    url: '/api/admin/insert',
    headers: { 'x-api-key': w.config.adminApiKey ?? '' },
    payload: { file: 'username,tags\njack,vip\njill,staff\n' },
  });
  assert.equal(insert.statusCode, 200);
  const ids = await w.deps.store.db.selectFrom('accounts').select(['id', 'username']).execute();
  const store = w.deps.store;
  await store.db.transaction().execute((trx) =>
    recordEvents(
      trx,
      store.caps,
      ids.map((a) => ({
        type: 'account.renamed' as const,
        accountId: a.id,
        account: { id: `acc_${a.id}`, platform: 'x' as const, username: a.username, platformUserId: '1' },
        data: { from: 'old', to: a.username },
      })),
      w.clock.now(),
    ),
  );
  await w.deliverer.runOnce();
  const types = (r: { received: { body: string }[] }) =>
    r.received.map((x) => JSON.parse(x.body)).map((b) => `${b.type}:${b.data.account?.username ?? ''}`);
  assert.deepEqual(types(vip!), ['account.renamed:jack']);
  assert.deepEqual(types(imports!), ['import.completed:']);
  assert.deepEqual(types(renames!).sort(), ['account.renamed:jack', 'account.renamed:jill']);
});
