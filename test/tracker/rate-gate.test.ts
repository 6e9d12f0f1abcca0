// The rate gate on its own: room in the window, one probe when the state is unknown, waits, and
// implausible headers that must not park it for weeks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_WAIT_MS, RateGate, RESET_MARGIN_MS } from '../../src/tracker/rate-gate.ts';
import { VirtualClock } from '../helpers/tracker.ts';

test('a known window lets requests through while it has room, then waits for the reset', async () => {
  const clock = new VirtualClock();
  const gate = new RateGate(clock);
  assert.equal(gate.tryAcquire(), true, 'unknown state: one probe goes');
  assert.equal(gate.tryAcquire(), false, 'but only one until its answer is known');
  gate.settle({ limit: 3, remaining: 2, resetAt: clock.now() + 60_000 });
  assert.equal(gate.tryAcquire(), true);
  assert.equal(gate.tryAcquire(), true);
  assert.equal(gate.tryAcquire(), false, 'two in flight use the two left');
  gate.settle({ limit: 3, remaining: 1, resetAt: clock.now() + 60_000 });
  gate.settle({ limit: 3, remaining: 0, resetAt: clock.now() + 60_000 });
  const start = clock.now();
  assert.equal(await gate.acquire(undefined, { windowWait: false }), false, 'no window wait when asked not to');
  assert.equal(await gate.acquire(), true);
  assert.equal(clock.now() - start, 60_000 + RESET_MARGIN_MS);
});

test('a 429 blocks until its retry time, and at least a moment even when that time is past', async () => {
  const clock = new VirtualClock();
  const gate = new RateGate(clock);
  gate.tryAcquire();
  gate.settle(null, clock.now() - 5_000);
  assert.equal(gate.tryAcquire(), false, 'a reset already past on our clock still holds the gate');
  const start = clock.now();
  await gate.acquire();
  assert.ok(clock.now() - start >= 1_000);
});

test('a reset weeks away (milliseconds sent as seconds) is not believed beyond an hour', async () => {
  const clock = new VirtualClock();
  const gate = new RateGate(clock);
  gate.tryAcquire();
  gate.settle({ limit: 10, remaining: 0, resetAt: clock.now() + 30 * 86_400_000 }, 1e17);
  assert.doesNotThrow(() => gate.snapshot());
  const start = clock.now();
  await gate.acquire();
  assert.ok(clock.now() - start <= MAX_WAIT_MS + RESET_MARGIN_MS, `waited ${clock.now() - start} ms`);
});
