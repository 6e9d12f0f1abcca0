// The outbound guard: private addresses refused (also when a name resolves to one at connect
// time), no redirects followed, a time limit, at most 64 KiB read; a hanging endpoint holds only
// its own share of the deliverer.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger } from '../../src/logger.ts';
import { systemClock } from '../../src/clock.ts';
import { isPrivateAddress } from '../../src/webhooks/address-guard.ts';
import { createDeliverer } from '../../src/webhooks/create-deliverer.ts';
import { postJson } from '../../src/webhooks/outbound.ts';
import { startReceiver } from './receiver.ts';
import { webhookWorld } from './helpers.ts';

test('private, loopback, link-local, multicast and reserved addresses are recognised', () => {
  for (const address of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'ff02::1',
    '::ffff:10.0.0.1',
  ]) {
    assert.equal(isPrivateAddress(address), true, address);
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1'])
    assert.equal(isPrivateAddress(address), false, address);
});

test('the address is checked at connect time: a name that resolves to loopback is refused', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const port = new URL(receiver.url).port;
  const refused = await postJson(new URL(`http://localhost:${port}/hook`), {}, '{}', {
    timeoutMs: 5_000,
    allowPrivate: false,
  });
  assert.equal(refused.status, null);
  assert.match(refused.error ?? '', /private, loopback/);
  const literal = await postJson(new URL(`http://127.0.0.1:${port}/hook`), {}, '{}', {
    timeoutMs: 5_000,
    allowPrivate: false,
  });
  assert.match(literal.error ?? '', /private, loopback/);
  assert.equal(receiver.received.length, 0, 'nothing was sent');
  const allowed = await postJson(new URL(`http://localhost:${port}/hook`), {}, '{}', {
    timeoutMs: 5_000,
    allowPrivate: true,
  });
  assert.equal(allowed.status, 200);
});

test('redirects are not followed, slow answers time out, and a huge answer is cut at 64 KiB', async (t) => {
  let redirected = 0;
  const server = createServer((req, res) => {
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/target' }).end();
    if (req.url === '/target') return void (redirected++, res.end('ok'));
    if (req.url === '/slow') return; // never answers
    res.writeHead(200);
    res.write(Buffer.alloc(1024 * 1024, 'x'));
    // …and never ends: the cap must not wait for the rest.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const options = { timeoutMs: 1_000, allowPrivate: true };
  const redirect = await postJson(new URL(`${base}/redirect`), {}, '{}', options);
  assert.equal(redirect.status, 302);
  assert.match(redirect.error ?? '', /redirects are not followed/);
  assert.equal(redirected, 0);
  const slow = await postJson(new URL(`${base}/slow`), {}, '{}', options);
  assert.equal(slow.status, null);
  assert.match(slow.error ?? '', /no answer within 1 s/);
  const huge = await postJson(new URL(`${base}/huge`), {}, '{}', { timeoutMs: 30_000, allowPrivate: true });
  assert.equal(huge.status, 200);
  assert.equal(huge.error, null);
});

test('a hanging endpoint does not delay the deliveries of another', async (t) => {
  const w = await webhookWorld(t, { WEBHOOK_TIMEOUT: '60s', WEBHOOK_CONCURRENCY: '8' });
  const [hanging, healthy] = await Promise.all([startReceiver(), startReceiver()]);
  hanging!.hang = true;
  t.after(() => Promise.all([hanging!.close(), healthy!.close()]));
  const slow = await w.createWebhook({ url: hanging!.url, events: ['*'] });
  const fast = await w.createWebhook({ url: healthy!.url, events: ['*'] });
  // The hanging endpoint's queue is first in line.
  for (let i = 0; i < 20; i++) await w.admin('POST', `/api/admin/webhooks/${slow.id}/test`);
  for (let i = 0; i < 20; i++) await w.admin('POST', `/api/admin/webhooks/${fast.id}/test`);
  const deliverer = createDeliverer(w.config, w.deps.store, createLogger('silent'), w.deps.keyHashSecret, {
    clock: systemClock,
  });
  deliverer.start();
  const deadline = Date.now() + 30_000;
  while (healthy!.received.length < 20 && Date.now() < deadline) await delay(20);
  assert.equal(healthy!.received.length, 20, 'every delivery to the healthy endpoint arrived while the other hangs');
  assert.ok(hanging!.received.length <= 2, 'the hanging endpoint holds only its share of the slots (8 / 4)');
  // Cut the hanging connections so the deliverer can stop.
  await hanging!.close();
  await deliverer.stop();
});
