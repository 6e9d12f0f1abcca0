// The outbox survives SIGKILL: a server is killed while its receiver is down and its deliveries are
// failing and leased; after a restart, the receiver (now up) gets every event, signed. Real
// processes, real HTTP; the webhook is made and its log read with the `perch webhooks` command.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ADMIN_KEY } from '../helpers/app.ts';
import { perch } from '../helpers/cli.ts';
import { startServer } from '../helpers/server-process.ts';
import { freshStoreUrl } from '../helpers/store-url.ts';
import { startReceiver, verifySignature } from './receiver.ts';

const EVENTS = 30;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}

test(
  'deliveries queued while the receiver is down survive kill -9 and all arrive after a restart',
  { timeout: 180_000 },
  async (t) => {
    const location = await freshStoreUrl();
    t.after(() => location.drop());
    const port = await freePort();
    const env = {
      DATABASE_URL: location.url,
      ADMIN_API_KEY: ADMIN_KEY,
      KEY_HASH_SECRET: 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT: '2s',
      // Retries soon and for long enough (about a minute) to outlive the crash and the lease.
      WEBHOOK_RETRY_SCHEDULE: Array(20).fill('3s').join(','),
    };
    const created = await perch(
      ['webhooks', 'create', `http://127.0.0.1:${port}/hook`, '--events', '*', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const hook = JSON.parse(created.stdout) as { id: string; secret: string };

    const server = await startServer(env);
    t.after(() => server.child.kill('SIGKILL'));
    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const response = await fetch(`${server.url}/api/admin/webhooks/${hook.id}/test`, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN_KEY },
      });
      assert.equal(response.status, 202);
      eventIds.push(((await response.json()) as { eventId: string }).eventId);
    }
    // Every delivery has been tried and refused at least once (the receiver is down).
    await until('first attempts', async () => {
      const response = await fetch(`${server.url}/api/admin/webhooks/${hook.id}/deliveries?limit=500`, {
        headers: { 'x-api-key': ADMIN_KEY },
      });
      const attempts = ((await response.json()) as { data: { eventId: string; statusCode: number | null }[] }).data;
      return new Set(attempts.map((a) => a.eventId)).size === EVENTS ? true : undefined;
    });
    server.child.kill('SIGKILL');
    assert.equal((await server.exited).signal, 'SIGKILL');

    const receiver = await startReceiver('/hook', port);
    t.after(() => receiver.close());
    const again = await startServer(env);
    t.after(() => again.child.kill('SIGKILL'));
    await until('every event at the receiver', async () =>
      new Set(receiver.received.map((r) => r.headers['webhook-id'])).size === EVENTS ? true : undefined,
    );
    assert.deepEqual(
      [...new Set(receiver.received.map((r) => String(r.headers['webhook-id'])))].sort(),
      [...eventIds].sort(),
    );
    assert.ok(
      receiver.received.every((r) => verifySignature(hook.secret, r)),
      'every delivery is signed with the secret',
    );

    const log = await perch(['webhooks', 'deliveries', hook.id, '--limit', '500', '--json'], env);
    assert.equal(log.code, 0, log.stderr);
    const attempts = JSON.parse(log.stdout) as { eventId: string; statusCode: number | null }[];
    assert.equal(
      new Set(attempts.filter((a) => a.statusCode === 200).map((a) => a.eventId)).size,
      EVENTS,
      'the log shows each delivered',
    );
  },
);
