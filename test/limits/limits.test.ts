// The parts of the shared limits on their own: how clients are named, how big a block of request
// counts is, the spend budget's reservations across processes, and the tracker's polling loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientKey } from '../../src/limits/client-address.ts';
import { SpendBudget, type Meter } from '../../src/limits/spend-budget.ts';
import { X_RATES_APRIL_2026 } from '../../src/domain/spend.ts';
import { spendRows } from '../../src/storage/spend-repo.ts';
import { blockSize } from '../../src/limits/request-blocks.ts';
import { PollingLoop } from '../../src/loop.ts';
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

describe('spend budget', () => {
  const reads = (limit: number): Meter => ({
    name: 'x',
    period: 'day',
    limit,
    units: { users: 1, posts: 1 },
    label: 'daily read budget',
  });
  const reading = (budget: SpendBudget) =>
    budget.snapshot().map(({ period, used, limit }) => ({ period, used, limit }));

  it('grants what fits, partially at the end, never more than the limit across processes, and takes back what was not read', async (t) => {
    const stores = await freshStores(t, 2);
    const clock = new VirtualClock();
    const budgets = stores.map((store) => new SpendBudget(store.db, 'x', [reads(250)], X_RATES_APRIL_2026, clock));
    // 40 reservations of 10 from two processes at once: exactly 250 granted.
    const reservations = await Promise.all(Array.from({ length: 40 }, (_, i) => budgets[i % 2]!.reserve('users', 10)));
    assert.equal(
      reservations.reduce((sum, r) => sum + r.granted, 0),
      250,
    );
    assert.ok(reservations.every((r) => r.granted === 10 || r.granted === 0));
    // Two reservations read less than they were granted: the rest goes back, and a partial grant follows.
    const spent = reservations.filter((r) => r.granted > 0);
    await budgets[0]!.settle(spent[0]!, 3);
    await budgets[1]!.settle(spent[1]!, 10);
    const partial = await budgets[0]!.reserve('posts', 10);
    assert.equal(partial.granted, 7);
    assert.equal(partial.limitedBy, 'daily read budget');
    assert.deepEqual(reading(budgets[0]!), [{ period: '2026-11-23', used: 250, limit: 250 }]);
    assert.equal((await budgets[1]!.reserve('users', 1)).granted, 0, 'the day is spent');
    assert.equal(
      await budgets[1]!.spend('users', 1, {}, async () => ({ value: 'read', billed: 1 })),
      null,
      'spend does not run work on a spent day',
    );
    clock.advance(86_400_000);
    assert.equal(
      await budgets[1]!.spend('users', 5, {}, async (granted) => ({ value: granted, billed: 2 })),
      5,
      'a new UTC day is open',
    );
    assert.deepEqual(reading(budgets[1]!), [{ period: '2026-11-24', used: 2, limit: 250 }]);
  });

  it('holds dollars per UTC day and month and posts per month at once; the month rolls over at UTC midnight', async (t) => {
    const [store] = await freshStores(t);
    const clock = new VirtualClock(Date.parse('2026-11-29T23:00:00.000Z'));
    const meters: Meter[] = [
      { name: 'x:usd', period: 'day', limit: 1_000_000, units: X_RATES_APRIL_2026, label: 'daily dollar budget' },
      { name: 'x:usd', period: 'month', limit: 1_500_000, units: X_RATES_APRIL_2026, label: 'monthly dollar budget' },
      { name: 'x:posts', period: 'month', limit: 150, units: { users: 0, posts: 1 }, label: 'monthly post-read cap' },
    ];
    const budget = new SpendBudget(store!.db, 'x', meters, X_RATES_APRIL_2026, clock);
    // $1 a day buys 100 users at $0.010.
    const users = await budget.reserve('users', 120);
    assert.deepEqual([users.granted, users.limitedBy], [100, 'daily dollar budget']);
    await budget.settle(users, 100);
    assert.equal((await budget.reserve('users', 1)).granted, 0);
    // The next UTC day (same month): the day is open, the month has $0.50 left, 100 posts at $0.005.
    clock.advance(3_600_000);
    const posts = await budget.reserve('posts', 150);
    assert.deepEqual([posts.granted, posts.limitedBy], [100, 'monthly dollar budget']);
    await budget.settle(posts, 100);
    // All or nothing, and room kept for profile checks.
    assert.equal((await budget.reserve('posts', 10, { whole: true })).granted, 0);
    // December: the month's dollars and posts start again, the post cap still counts posts.
    clock.advance(86_400_000);
    const december = await budget.reserve('posts', 200, { keepUsers: 50 });
    // $1 a day, keeping $0.50 for 50 users: $0.50 buys 100 posts.
    assert.deepEqual([december.granted, december.limitedBy], [100, 'daily dollar budget']);
    await budget.settle(december, 40);
    const ledger = await spendRows(store!.db, { from: '2026-11-01', to: '2026-12-31' });
    assert.deepEqual(
      ledger.map((r) => [r.day, r.kind, r.resources, r.micros]),
      [
        ['2026-11-29', 'users', 100, 1_000_000],
        ['2026-11-30', 'posts', 100, 500_000],
        ['2026-12-01', 'posts', 40, 200_000],
      ],
    );
    assert.deepEqual(
      budget.snapshot().map((m) => [m.label, m.period, m.used]),
      [
        ['daily dollar budget', '2026-12-01', 200_000],
        ['monthly dollar budget', '2026-12', 200_000],
        ['monthly post-read cap', '2026-12', 40],
      ],
    );
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
