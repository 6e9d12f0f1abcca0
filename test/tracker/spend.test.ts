// X's bill as perch keeps it: the ledger equals what the local X bills (each user and post returned,
// once per UTC day), a re-check the same day is free, the day and month roll over at UTC midnight,
// and with a dollar budget too small for every account the names never checked are served first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SpendRow } from '../../src/domain/spend.ts';
import { spendRows } from '../../src/storage/spend-repo.ts';
import { trackerWorld, type TrackerWorld } from '../helpers/tracker.ts';

const HOUR = 3_600_000;

/** The ledger's X rows as `day -> {users, posts}`, like the fake's bill. */
async function ledger(w: TrackerWorld): Promise<Map<string, { users: number; posts: number }>> {
  const rows: SpendRow[] = await spendRows(w.store.db, { from: '2026-01-01', to: '2027-12-31', platform: 'x' });
  const byDay = new Map<string, { users: number; posts: number }>();
  for (const row of rows) {
    const day = byDay.get(row.day) ?? { users: 0, posts: 0 };
    day[row.kind] += row.resources;
    byDay.set(row.day, day);
  }
  return byDay;
}

async function dollars(w: TrackerWorld, day: string): Promise<number> {
  const rows = await spendRows(w.store.db, { from: day, to: day, platform: 'x' });
  return rows.reduce((sum, r) => sum + r.micros, 0) / 1_000_000;
}

test("the ledger equals X's bill: first checks, timelines, refreshes, free re-checks the same day, and a new UTC day billed again", async (t) => {
  const w = await trackerWorld(t, { env: { X_DAILY_READ_BUDGET: '1000000' } });
  const users = w.x.addUsers(30, 'spender');
  const start = w.clock.now();
  // Every third account has posts: 12, 6 of them inside the refresh window.
  for (let i = 0; i < users.length; i += 3)
    for (let p = 0; p < 12; p += 1)
      w.x.addPost(users[i]!.id, { text: `post ${p}`, createdAt: new Date(start - (p + 1) * 14 * HOUR).toISOString() });
  await w.importCsv(`username\n${users.map((u) => u.username).join('\n')}\n`);
  // A name X does not know is not billed.
  await w.importCsv('username\nnobodyhere\n');
  const tracker = w.tracker();

  await tracker.tick(); // 2026-11-23 12:00
  assert.deepEqual(w.x.bill().get('2026-11-23'), { users: 30, posts: 120 });
  assert.deepEqual(await ledger(w), w.x.bill());
  assert.equal(await dollars(w, '2026-11-23'), 0.9, '30 users at $0.010 and 120 posts at $0.005');

  // An hour later, the same UTC day: every profile and recent post is read again, X bills none of it.
  w.clock.advance(HOUR);
  const before = w.x.requests.length;
  await tracker.tick();
  assert.ok(w.x.requests.length > before, 'the accounts were checked again');
  assert.deepEqual(w.x.bill().get('2026-11-23'), { users: 30, posts: 120 });
  assert.deepEqual(await ledger(w), w.x.bill());

  // New posts move the count: only they are read; the next UTC day bills every user and refreshed post again.
  w.x.addPost(users[1]!.id, { text: 'a first post' });
  w.clock.current = Date.parse('2026-11-24T00:30:00.000Z');
  await tracker.tick();
  const second = w.x.bill().get('2026-11-24');
  assert.equal(second?.users, 30);
  assert.ok((second?.posts ?? 0) >= 1 + 10 * 6, `posts billed on the second day: ${second?.posts}`);
  assert.deepEqual(await ledger(w), w.x.bill());
  await tracker.stop(0);
});

test('a dollar budget too small for every account: never-checked names first, free re-checks go on, the rest waits for the next UTC day', async (t) => {
  // $0.80 a day buys 80 user reads at $0.010.
  const w = await trackerWorld(t, { env: { X_DAILY_BUDGET_USD: '0.80', X_DAILY_READ_BUDGET: '1000000' } });
  const old = w.x.addUsers(50, 'old');
  await w.importCsv(`username\n${old.map((u) => u.username).join('\n')}\n`);
  const tracker = w.tracker();
  assert.equal((await tracker.tick()).checked, 50); // 12:00, $0.50
  assert.equal(await dollars(w, '2026-11-23'), 0.5);

  const fresh = w.x.addUsers(40, 'new');
  await w.importCsv(`username\n${fresh.map((u) => u.username).join('\n')}\n`);
  w.clock.advance(HOUR);
  await tracker.tick(); // 13:00: all 90 due; $0.30 left
  const checkedNow = async (names: { username: string }[]) => {
    let n = 0;
    for (const u of names) if ((await w.account('x', u.username)).tracking.lastCheckedAt !== null) n += 1;
    return n;
  };
  assert.equal(await checkedNow(fresh), 30, 'thirty never-checked names were served first');
  const rechecked = await Promise.all(old.map((u) => w.account('x', u.username)));
  assert.ok(
    rechecked.every((a) => a.tracking.lastCheckedAt === new Date(w.clock.now()).toISOString()),
    'every re-check of a user billed today went ahead',
  );
  assert.equal(await dollars(w, '2026-11-23'), 0.8);
  assert.deepEqual(w.x.bill().get('2026-11-23'), { users: 80, posts: 0 });
  assert.match(tracker.status().platforms.x?.pauseReason ?? '', /daily dollar budget spent/);

  // The next UTC day: the ten still waiting go first.
  w.clock.current = Date.parse('2026-11-24T00:00:05.000Z');
  await tracker.tick();
  assert.equal(await checkedNow(fresh), 40);
  assert.equal(await dollars(w, '2026-11-24'), 0.8, 'the new day spent up to its budget again');
  assert.deepEqual(await ledger(w), w.x.bill());
  await tracker.stop(0);
});

test('a monthly dollar budget stops within the month and opens again at UTC midnight on the 1st', async (t) => {
  const w = await trackerWorld(t, { env: { X_MONTHLY_BUDGET_USD: '0.25', X_DAILY_READ_BUDGET: '1000000' } });
  w.clock.current = Date.parse('2026-11-30T22:00:00.000Z');
  const users = w.x.addUsers(40, 'monthly');
  await w.importCsv(`username\n${users.map((u) => u.username).join('\n')}\n`);
  const tracker = w.tracker();
  assert.equal((await tracker.tick()).checked, 25);
  w.clock.current = Date.parse('2026-11-30T23:59:00.000Z');
  assert.equal((await tracker.tick()).checked, 25, 'the 25 billed today are re-checked for free, no one else');
  assert.deepEqual(w.x.bill().get('2026-11-30'), { users: 25, posts: 0 });

  // December (01:00, when the 23:59 re-checks are due again): $0.25 for the 15 never checked first, then 10 of the stalest.
  w.clock.current = Date.parse('2026-12-01T01:00:01.000Z');
  await tracker.tick();
  assert.deepEqual(w.x.bill().get('2026-12-01'), { users: 25, posts: 0 });
  const never = await Promise.all(users.map((u) => w.account('x', u.username)));
  assert.equal(never.filter((a) => a.tracking.lastCheckedAt === null).length, 0);
  assert.deepEqual(await ledger(w), w.x.bill());
  await tracker.stop(0);
});
