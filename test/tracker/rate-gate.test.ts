// The rate gate on a real store: room in the window, one probe when the state is unknown, waits,
// implausible headers that must not park it for weeks, and one window shared by every gate (every
// tracker process) that names it.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { MAX_WAIT_MS, PROBE_LEASE_MS, RateGate, RESET_MARGIN_MS } from '../../src/limits/rate-gate.ts';
import { freshStores } from '../helpers/store-url.ts';
import { VirtualClock } from '../helpers/tracker.ts';

async function gates(t: TestContext, count: number) {
  const [store] = await freshStores(t);
  const clock = new VirtualClock();
  return { clock, gates: Array.from({ length: count }, () => new RateGate(store!.db, 'x:users:abc', clock)) };
}

test('a known window lets requests through while it has room, then waits for the reset', async (t) => {
  const {
    clock,
    gates: [gate],
  } = await gates(t, 1);
  if (!gate) throw new Error('no gate');
  const probe = await gate.tryAcquire();
  assert.deepEqual(probe, { kind: 'probe' }, 'unknown state: one probe goes');
  assert.equal(await gate.tryAcquire(), null, 'but only one until its answer is known');
  await gate.settle(probe, { limit: 3, remaining: 2, resetAt: clock.now() + 60_000 });
  const a = await gate.tryAcquire();
  const b = await gate.tryAcquire();
  assert.equal(a?.kind, 'token');
  assert.equal(b?.kind, 'token');
  assert.equal(await gate.tryAcquire(), null, 'two in flight use the two left');
  // The platform's count lags ours: a later answer saying 1 left must not give a token back.
  if (!a || !b) throw new Error('no tokens');
  await gate.settle(a, { limit: 3, remaining: 1, resetAt: clock.now() + 60_000 });
  assert.equal(await gate.tryAcquire(), null);
  await gate.settle(b, { limit: 3, remaining: 0, resetAt: clock.now() + 60_000 });
  const start = clock.now();
  assert.equal(await gate.acquire(undefined, { windowWait: false }), null, 'no window wait when asked not to');
  assert.deepEqual(await gate.acquire(), { kind: 'probe' }, 'after the reset the window is unknown again');
  assert.equal(clock.now() - start, 60_000 + RESET_MARGIN_MS);
});

test('gates naming the same window share it: together they never take more than it has', async (t) => {
  const { clock, gates: all } = await gates(t, 3);
  const [a, b, c] = all as [RateGate, RateGate, RateGate];
  const probe = await a.tryAcquire();
  assert.equal(await b.tryAcquire(), null, 'another process waits for the probe');
  if (!probe) throw new Error('no probe');
  await a.settle(probe, { limit: 10, remaining: 5, resetAt: clock.now() + 900_000 });
  const taken = [];
  for (let round = 0; round < 4; round++) for (const gate of all) taken.push(await gate.tryAcquire());
  assert.equal(taken.filter((ticket) => ticket !== null).length, 5, 'five tokens in all, whichever gate asked');
  const token = taken.find((ticket) => ticket !== null);
  if (!token) throw new Error('no token');
  await c.cancel(token);
  assert.equal((await b.tryAcquire())?.kind, 'token', 'a token given back is there for anyone');
  assert.equal(await c.tryAcquire(), null);
});

test('gates on separate connections racing for one window take exactly what it has', async (t) => {
  const stores = await freshStores(t, 4);
  const clock = new VirtualClock();
  const all = stores.map((s) => new RateGate(s.db, 'x:users:race', clock));
  const probe = await all[0]!.tryAcquire();
  if (!probe) throw new Error('no probe');
  await all[0]!.settle(probe, { limit: 50, remaining: 7, resetAt: clock.now() + 900_000 });
  // Every process asks many times at once (PostgreSQL runs these truly in parallel).
  const taken = await Promise.all(all.flatMap((gate) => Array.from({ length: 10 }, () => gate.tryAcquire())));
  assert.equal(taken.filter((ticket) => ticket !== null).length, 7);
});

test('a store that cannot record an answer does not fail the request; the gate still lets go', async (t) => {
  const [store] = await freshStores(t);
  const errors: unknown[] = [];
  const gate = new RateGate(store!.db, 'x:users:gone', new VirtualClock(), (error) => errors.push(error));
  const probe = await gate.tryAcquire();
  if (!probe) throw new Error('no probe');
  await store!.db.schema.dropTable('rate_windows').execute();
  await gate.settle(probe, { limit: 10, remaining: 9, resetAt: Date.now() + 60_000 });
  assert.equal(errors.length, 1, 'the failure was reported');
  assert.equal(gate.snapshot().inFlight, 0, 'and the request is no longer counted in flight');
});

test('a probe whose tracker died is taken over after its lease', async (t) => {
  const {
    clock,
    gates: [a, b],
  } = await gates(t, 2);
  if (!a || !b) throw new Error('no gates');
  assert.deepEqual(await a.tryAcquire(), { kind: 'probe' });
  const start = clock.now();
  assert.deepEqual(await b.acquire(), { kind: 'probe' });
  assert.ok(clock.now() - start >= PROBE_LEASE_MS, `took over after ${clock.now() - start} ms`);
});

test('a 429 blocks until its retry time, and at least a moment even when that time is past', async (t) => {
  const {
    clock,
    gates: [gate],
  } = await gates(t, 1);
  if (!gate) throw new Error('no gate');
  const probe = await gate.tryAcquire();
  if (!probe) throw new Error('no probe');
  await gate.settle(probe, null, clock.now() - 5_000);
  assert.equal(await gate.tryAcquire(), null, 'a reset already past on our clock still holds the gate');
  const start = clock.now();
  await gate.acquire();
  assert.ok(clock.now() - start >= 1_000);
});

test('a reset weeks away (milliseconds sent as seconds) is not believed beyond an hour', async (t) => {
  const {
    clock,
    gates: [gate],
  } = await gates(t, 1);
  if (!gate) throw new Error('no gate');
  const probe = await gate.tryAcquire();
  if (!probe) throw new Error('no probe');
  await gate.settle(probe, { limit: 10, remaining: 0, resetAt: clock.now() + 30 * 86_400_000 }, 1e17);
  assert.doesNotThrow(() => gate.snapshot());
  const start = clock.now();
  await gate.acquire();
  assert.ok(clock.now() - start <= MAX_WAIT_MS + RESET_MARGIN_MS, `waited ${clock.now() - start} ms`);
});
