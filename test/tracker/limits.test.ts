// The tracker within the platforms' limits, on a virtual clock: 429s with each header form,
// 5xx bursts and hangs, repeated failures, and X's daily read budget.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trackerSettings } from '../../src/tracker/create-tracker.ts';
import { trackerWorld, type TrackerWorld } from '../helpers/tracker.ts';

const HOUR = 3_600_000;
const WINDOW = 15 * 60_000;

async function seedX(w: TrackerWorld, n: number): Promise<void> {
  w.x.addUsers(n, 'user');
  await w.importCsv(`username\n${Array.from({ length: n }, (_, i) => `user${i}`).join('\n')}\n`);
}

const lookups = (w: TrackerWorld) => w.x.requests.filter((r) => r.path === '/2/users/by' || r.path === '/2/users');

test('x-rate-limit headers: no request is sent before the window resets, and no 429 is caused', async (t) => {
  const w = await trackerWorld(t);
  await seedX(w, 350);
  w.x.setRateLimit('users_by', 2, WINDOW);
  const start = w.clock.now();
  const report = await w.tracker().tick();
  assert.equal(report.checked, 350);
  assert.equal(w.x.tooManyRequests, 0);
  const times = lookups(w).map((r) => r.at);
  assert.equal(times.length, 4);
  // Two requests fit in the first window; the next two wait for the reset the headers announced.
  const reset = Math.ceil((start + WINDOW) / 1000) * 1000;
  assert.ok(
    times.slice(0, 2).every((at) => at < reset),
    `requests at ${times.map((at) => at - start).join(', ')} ms, reset at ${reset - start}`,
  );
  assert.ok(
    times.slice(2).every((at) => at >= reset),
    `requests at ${times.map((at) => at - start).join(', ')} ms, reset at ${reset - start}`,
  );
});

test('Retry-After only: after a 429 nothing is sent before the time it names', async (t) => {
  const w = await trackerWorld(t, { x: { rateLimitHeaders: 'retry-after' } });
  await seedX(w, 250);
  w.x.setRateLimit('users_by', 1, WINDOW);
  const report = await w.tracker().tick();
  assert.equal(report.checked, 250);
  const statuses = lookups(w).map((r) => r.status);
  // Without remaining counts a 429 is how the tracker learns the window is spent; the request
  // after each 429 waited for the time it named, which is why the fake accepted it.
  assert.ok(statuses.includes(429));
  statuses.forEach((status, i) => {
    if (status === 429)
      assert.equal(
        statuses[i + 1] ?? 200,
        200,
        `request ${i + 1} went before the Retry-After time: ${statuses.join(',')}`,
      );
  });
  assert.equal(statuses.filter((s) => s === 200).length, 3);
});

test('a 429 on the lookup releases the batch without counting it as a failure', async (t) => {
  const w = await trackerWorld(t);
  await seedX(w, 5);
  w.x.faults.inject(
    {
      kind: 'status',
      status: 429,
      body: '{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}',
    },
    1,
    '/2/users/by',
  );
  const tracker = w.tracker();
  await tracker.tick();
  const account = await w.account('x', 'user0');
  assert.equal(account.status, 'active', 'checked once the window reopened');
  assert.equal(account.tracking.consecutiveFailures, 0);
});

test('5xx bursts and hangs are retried with backoff within the batch', async (t) => {
  const w = await trackerWorld(t);
  await seedX(w, 10);
  w.x.faults.inject({ kind: 'status', status: 503, body: '{"title":"Service Unavailable"}' }, 1, '/2/users/by');
  w.x.faults.inject({ kind: 'hang' }, 1, '/2/users/by');
  const report = await w.tracker({ timeoutMs: 200 }).tick();
  assert.equal(report.checked, 10);
  assert.equal((await w.account('x', 'user3')).status, 'active');
  assert.deepEqual(
    lookups(w).map((r) => r.status),
    [503, 'hang', 200],
  );
});

test('repeated failures back off, then show error with the reason kept; a later success clears it', async (t) => {
  const w = await trackerWorld(t);
  await seedX(w, 3);
  w.x.faults.inject({ kind: 'status', status: 502, body: 'bad gateway' }, 1_000, '/2/users/by');
  const tracker = w.tracker();
  for (let round = 1; round <= 5; round++) {
    await tracker.tick();
    const account = await w.account('x', 'user1');
    assert.equal(account.tracking.consecutiveFailures, round);
    assert.match(account.tracking.lastError ?? '', /unavailable/);
    assert.equal(account.status, round < 5 ? 'pending' : 'error');
    assert.ok(
      Date.parse(account.tracking.nextCheckAt ?? '') <= w.clock.now() + HOUR,
      'backoff is capped at the interval',
    );
    w.clock.advance(HOUR);
  }
  assert.match((await w.account('x', 'user1')).statusReason ?? '', /5 checks in a row failed/);
  w.x.faults.clear();
  await tracker.tick();
  const healed = await w.account('x', 'user1');
  assert.equal(healed.status, 'active');
  assert.equal(healed.tracking.consecutiveFailures, 0);
  assert.equal(healed.tracking.lastError, null);
});

test('X_DAILY_READ_BUDGET: lookups stop when the day is spent, across trackers, and start again the next UTC day', async (t) => {
  const w = await trackerWorld(t, { env: { X_DAILY_READ_BUDGET: '150' } });
  await seedX(w, 250);
  const tracker = w.tracker();
  // A batch of 100, then one of the 50 reads left.
  assert.equal((await tracker.tick()).checked, 150);
  const status = tracker.status().platforms.x;
  assert.equal(status?.budget?.used, 150);
  assert.match(status?.pauseReason ?? '', /budget/);
  assert.deepEqual(
    lookups(w).map((r) => (r.query.get('usernames') ?? '').split(',').length),
    [100, 50],
  );

  // The count is kept in the store and shared: another tracker (a restart, another process) sees it.
  const other = w.tracker();
  assert.equal((await other.tick()).checked, 0);

  // A new UTC day, a new budget: the 100 names never checked go first, then the 50 stalest.
  w.clock.current = Date.parse('2026-11-24T00:00:01.000Z');
  const before = w.x.requests.length;
  assert.equal((await other.tick()).checked, 150, 'a new UTC day, a new budget');
  assert.deepEqual(
    w.x.requests
      .slice(before)
      .map((r) => [r.path, (r.query.get('usernames') ?? r.query.get('ids') ?? '').split(',').length]),
    [
      ['/2/users/by', 100],
      ['/2/users', 50],
    ],
  );
});

test('two trackers reserving at once never read more than the budget together', async (t) => {
  const w = await trackerWorld(t, { env: { X_DAILY_READ_BUDGET: '250' } });
  await seedX(w, 600);
  const [a, b] = [w.tracker(), w.tracker()];
  const [ra, rb] = await Promise.all([a.tick(), b.tick()]);
  assert.equal(ra.checked + rb.checked, 250);
  const read = lookups(w).reduce((sum, r) => sum + (r.query.get('usernames') ?? '').split(',').length, 0);
  assert.equal(read, 250);
});

test('Bluesky ratelimit-* headers: the tracker waits for the reset instead of causing 429s', async (t) => {
  const w = await trackerWorld(t);
  const handles = Array.from({ length: 60 }, (_, i) => `u${i}.bsky.social`);
  for (const handle of handles) w.bsky.addUser({ handle });
  await w.importCsv(`username\n${handles.join('\n')}\n`);
  w.bsky.setRateLimit('getProfiles', 1, 5 * 60_000);
  const start = w.clock.now();
  const report = await w.tracker().tick();
  assert.equal(report.checked, 60);
  assert.equal(w.bsky.tooManyRequests, 0);
  const times = w.bsky.requests.filter((r) => r.path.endsWith('getProfiles')).map((r) => r.at - start);
  assert.equal(times.length, 3);
  assert.ok(times[1]! >= 5 * 60_000 && times[2]! >= 10 * 60_000, `requests at ${times.join(', ')} ms`);
});

test('a retry after a 5xx never waits for the window while holding the lease: accounts are looked up once', async (t) => {
  const w = await trackerWorld(t, { env: { TRACK_LEASE: '5m' } });
  await seedX(w, 300);
  w.x.setRateLimit('users_by', 2, WINDOW);
  w.x.faults.inject({ kind: 'status', status: 503, body: '{"title":"Service Unavailable"}' }, 1, '/2/users/by');
  // One batch at a time: virtual time must not jump past a lease while another batch's store
  // round trip (real time) is still running.
  const report = await w.tracker({ settings: { ...trackerSettings(w.config), batchesInFlight: 1 } }).tick();
  assert.equal(report.checked, 300);
  assert.equal(report.leaseLost, 0);
  assert.equal(w.x.tooManyRequests, 0);
  for (const user of w.x.world.usersById.values())
    assert.equal(w.x.lookupsOf(user.id), 1, `${user.username} looked up ${w.x.lookupsOf(user.id)} times`);
});
