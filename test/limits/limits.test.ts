// The parts of the shared limits on their own: how clients are named, how big a block of request
// counts is, the read budget's reservations across processes, and the tracker's polling loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientKey } from '../../src/limits/client-address.ts';
import { ReadBudget } from '../../src/limits/read-budget.ts';
import { blockSize } from '../../src/limits/request-blocks.ts';
import { PollingLoop } from '../../src/tracker/loop.ts';
import { freshStores } from '../helpers/store-url.ts';
import { VirtualClock } from '../helpers/tracker.ts';

describe('client addresses', () => {
  it('keeps IPv4 addresses, counts IPv6 per /64, and reads IPv4-mapped IPv6 as IPv4', () => {
    assert.equal(clientKey('203.0.113.7'), '203.0.113.7');
    assert.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.notEqual(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:3::1'));
  });
});

describe('request blocks', () => {
  it('asks for a sixteenth of what is left, at least one, at most 100, and nothing past the limit', () => {
    assert.equal(blockSize(0, 600), 37);
    assert.equal(blockSize(0, 100_000), 100);
    assert.equal(blockSize(590, 600), 1);
    assert.equal(blockSize(599, 600), 1);
    assert.equal(blockSize(600, 600), 0);
    assert.equal(blockSize(700, 600), 0);
  });
});

describe('read budget', () => {
  it('grants what fits, partially at the end, never more than the limit across processes, and takes back what was not read', async (t) => {
    const stores = await freshStores(t, 2);
    const clock = new VirtualClock();
    const budgets = stores.map((store) => new ReadBudget(store.db, 'x', 250, clock));
    // 40 reservations of 10 from two processes at once: exactly 250 granted.
    const reservations = await Promise.all(Array.from({ length: 40 }, (_, i) => budgets[i % 2]!.reserve(10)));
    assert.equal(
      reservations.reduce((sum, r) => sum + r.granted, 0),
      250,
    );
    assert.ok(reservations.every((r) => r.granted === 10 || r.granted === 0));
    // Two reservations read less than they were granted: the rest goes back, and a partial grant follows.
    const spent = reservations.filter((r) => r.granted > 0);
    await budgets[0]!.settle(spent[0]!, 3);
    await budgets[1]!.settle(spent[1]!, 10);
    const partial = await budgets[0]!.reserve(10);
    assert.equal(partial.granted, 7);
    assert.deepEqual(budgets[0]!.snapshot(), { day: '2026-11-23', used: 250, limit: 250 });
    assert.equal((await budgets[1]!.reserve(1)).granted, 0, 'the day is spent');
    assert.equal(
      await budgets[1]!.spend(1, async () => ({ value: 'read', reads: 1 })),
      null,
      'spend does not run work on a spent day',
    );
    clock.advance(86_400_000);
    assert.equal(
      await budgets[1]!.spend(5, async (granted) => ({ value: granted, reads: 2 })),
      5,
      'a new UTC day is open',
    );
    assert.deepEqual(budgets[1]!.snapshot(), { day: '2026-11-24', used: 2, limit: 250 });
  });
});

describe('polling loop', () => {
  it('runs a round, waits, wakes on notify, skips the wait after a notify during a round, and stop() awaits the round', async () => {
    const clock = new VirtualClock();
    const sleeps: number[] = [];
    const sleepingClock = {
      now: clock.now,
      // Sleeps until woken, recording how long it was asked to.
      sleep: (ms: number, signal?: AbortSignal) =>
        new Promise<void>((resolve) => {
          sleeps.push(ms);
          if (signal?.aborted) return resolve();
          signal?.addEventListener('abort', () => resolve(), { once: true });
        }),
    };
    let rounds = 0;
    let release = () => {};
    let loop: PollingLoop | null = null;
    loop = new PollingLoop(
      {
        round: async () => {
          rounds += 1;
          if (rounds === 2) loop?.notify(); // work arrived during this round
          if (rounds === 3) await new Promise<void>((resolve) => (release = resolve));
        },
        waitMs: async () => 60_000,
        onError: (error) => assert.fail(String(error)),
      },
      sleepingClock,
    );
    loop.start();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(rounds, 1);
    assert.equal(loop.state, 'waiting');
    assert.deepEqual(sleeps, [60_000]);
    loop.notify();
    // Round 2 notifies itself: its wait ends at once and round 3 starts (and blocks).
    while (rounds < 3) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(loop.state, 'running');
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stopped, false, 'stop() waits for the running round');
    release();
    await stopping;
    assert.equal(loop.state, 'stopped');
    assert.equal(rounds, 3);
  });
});
