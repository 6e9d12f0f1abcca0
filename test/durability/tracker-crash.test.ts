// A tracker killed mid-batch loses nothing: after its lease expires another tracker checks those
// accounts, once. And a worker stopped with SIGTERM gives its leases back and exits 0.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createBlueskyClient } from '../../src/platforms/bluesky.ts';
import { createXClient } from '../../src/platforms/x.ts';
import { commitImport, planImport } from '../../src/services/import-accounts.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { trackerSettings } from '../../src/tracker/create-tracker.ts';
import { RateGate } from '../../src/limits/rate-gate.ts';
import { Tracker } from '../../src/tracker/tracker.ts';
import { systemClock } from '../../src/clock.ts';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { startWorker } from '../helpers/server-process.ts';
import { freshStoreUrl } from '../helpers/store-url.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const SECRET = 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const N = 250;

async function setup(t: TestContext) {
  const location = await freshStoreUrl();
  const x = await startFakeX();
  const users = x.addUsers(N, 'user');
  const env = {
    DATABASE_URL: location.url,
    KEY_HASH_SECRET: SECRET,
    X_API_BASE_URL: x.url,
    X_BEARER_TOKEN: X_TOKEN,
    BLUESKY_API_BASE_URL: 'http://127.0.0.1:9',
    TRACK_LEASE: '2s',
    TRACK_INTERVAL: '1h',
  };
  const config = createConfig(env);
  const store = await openStore(config.databaseUrl);
  const plan = await planImport(`username\n${users.map((u) => u.username).join('\n')}\n`, config);
  await commitImport(store, plan, { actor: 'test', source: 'test', clock: systemClock });
  t.after(async () => {
    await store.close();
    await x.close();
    await location.drop();
  });
  return { env, config, store, x, users };
}

async function leased(store: Store): Promise<number> {
  const rows = await store.db
    .selectFrom('accounts')
    .select('lease_owner')
    .where('lease_owner', 'is not', null)
    .execute();
  return rows.length;
}

async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(50);
  }
}

/**
 * Makes the lookup window known, with room, as after earlier checks: the worker's first lookups
 * then go on tokens, not as the window's one probe (a dead worker's probe would hold the window
 * for PROBE_LEASE_MS, which rate-gate.test.ts covers).
 */
async function knownWindow(store: Store, xUrl: string): Promise<void> {
  const client = createXClient({ baseUrl: xUrl, bearerToken: X_TOKEN });
  const gate = new RateGate(
    store.db,
    `x:${client.rateLimitGroups.lookup_by_name}:${client.rateLimitScope}`,
    systemClock,
  );
  const probe = await gate.tryAcquire();
  if (!probe) throw new Error('the window was already in use');
  await gate.settle(probe, { limit: 900, remaining: 900, resetAt: Date.now() + 900_000 });
}

test('a tracker killed with SIGKILL mid-batch: after the lease expires another tracker checks those accounts, once', async (t) => {
  const { env, config, store, x, users } = await setup(t);
  await knownWindow(store, x.url);
  // Every lookup hangs, so the worker is caught holding its claimed batches.
  x.faults.inject({ kind: 'hang' }, 1_000, '/2/users');
  const worker = await startWorker(env);
  await until(async () => (await leased(store)) > 0 && x.requests.length > 0);
  worker.child.kill('SIGKILL');
  await worker.exited;
  const orphaned = await leased(store);
  assert.ok(orphaned > 0, 'the dead worker left leases behind');

  x.faults.clear();
  const tracker = new Tracker({
    store,
    clients: [
      createXClient({ baseUrl: x.url, bearerToken: X_TOKEN }),
      createBlueskyClient({ baseUrl: 'http://127.0.0.1:9' }),
    ],
    clock: systemClock,
    settings: trackerSettings(config),
    logger: createLogger('silent'),
  });
  t.after(() => tracker.stop(0));
  // While the leases hold, only the unclaimed accounts are checked.
  const early = await tracker.tick();
  assert.equal(early.checked, N - orphaned);
  await delay(config.trackLeaseMs + 200);
  const late = await tracker.tick();
  assert.equal(late.checked, orphaned);

  const snapshots = await store.db.selectFrom('metric_snapshots').select('account_id').execute();
  assert.equal(snapshots.length, N, 'one snapshot per account');
  for (const user of users)
    assert.equal(x.lookupsOf(user.id), 1, `${user.username} was looked up ${x.lookupsOf(user.id)} times`);
  const states = await store.db.selectFrom('accounts').select('status').where('status', '<>', 'active').execute();
  assert.deepEqual(states, []);
});

test('a worker stopped with SIGTERM releases its leases and exits 0 within 10 s', async (t) => {
  const { env, store, x } = await setup(t);
  x.faults.inject({ kind: 'hang' }, 1_000, '/2/users');
  const worker = await startWorker({ ...env, TRACK_LEASE: '5m' });
  await until(async () => (await leased(store)) > 0);
  const started = Date.now();
  worker.child.kill('SIGTERM');
  const { code } = await worker.exited;
  assert.equal(code, 0);
  assert.ok(Date.now() - started < 10_000);
  assert.equal(await leased(store), 0, 'nothing is left leased: another tracker may take it at once');
});
