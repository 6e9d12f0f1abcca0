// Follower passes against the local platforms on a real store: the first pass is the baseline,
// the next reports exactly who came and who left (one event), a failed page changes nothing and the
// pass resumes where it stopped, and on X the ledger equals the bill and a pass stops at the budget.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { SpendRow } from '../../src/domain/spend.ts';
import { spendRows } from '../../src/storage/spend-repo.ts';
import { trackerWorld, type TrackerWorld } from '../helpers/tracker.ts';

const DAY = 86_400_000;

async function current(w: TrackerWorld, username: string): Promise<string[]> {
  const rows = await w.store.db
    .selectFrom('followers as f')
    .innerJoin('accounts as a', 'a.id', 'f.account_id')
    .select('f.handle')
    .where('a.username_key', '=', username.toLowerCase())
    .where('f.first_seen', 'is not', null)
    .where('f.gone_at', 'is', null)
    .orderBy('f.handle')
    .execute();
  return rows.map((r) => r.handle);
}

async function followerEvents(w: TrackerWorld) {
  const rows = await w.store.db
    .selectFrom('events')
    .select('data')
    .where('type', '=', 'account.followers_changed')
    .orderBy('seq')
    .execute();
  return rows.map((r) => JSON.parse(r.data) as Record<string, unknown>);
}

const handles = (list: unknown) => (list as { username: string }[]).map((f) => f.username).sort();

describe('follower passes', () => {
  it('Bluesky: a baseline, then exactly who followed and who left, in one event', async (t: TestContext) => {
    const w = await trackerWorld(t);
    const ada = w.bsky.addUser({ handle: 'ada.bsky.social' });
    const fans = w.bsky.addFollowers(ada.did, 230, 'fan');
    await w.importCsv('platform,username\nbluesky,ada.bsky.social\n');
    const tracker = w.tracker();
    await tracker.tick();
    assert.deepEqual(await tracker.followerRound(), { finished: 1 });
    assert.equal((await current(w, 'ada.bsky.social')).length, 230);
    assert.deepEqual(await followerEvents(w), [], 'the first pass is the baseline');
    assert.equal(w.bsky.requestsTo('getFollowers').length, 3);

    // Not due again before the interval.
    assert.deepEqual(await tracker.followerRound(), {});
    w.bsky.unfollow(fans[3]!.did, ada.did);
    w.bsky.unfollow(fans[200]!.did, ada.did);
    const late = w.bsky.addFollowers(ada.did, 2, 'late');
    w.clock.advance(DAY);
    assert.deepEqual(await tracker.followerRound(), { finished: 1 });
    const events = await followerEvents(w);
    assert.equal(events.length, 1);
    assert.deepEqual(handles(events[0]!.gained), late.map((u) => u.handle).sort());
    assert.deepEqual(handles(events[0]!.lost), ['fan200.bsky.social', 'fan3.bsky.social']);
    assert.equal(events[0]!.gainedCount, 2);
    assert.equal(events[0]!.lostCount, 2);
    assert.equal(events[0]!.via, 'poll');
    assert.equal((events[0]!.account as { username: string }).username, 'ada.bsky.social');
    assert.equal((await current(w, 'ada.bsky.social')).length, 230);
  });

  it('a failed page changes nothing; the pass resumes at that page and reports nothing twice', async (t: TestContext) => {
    const w = await trackerWorld(t);
    const ada = w.bsky.addUser({ handle: 'ada.bsky.social' });
    const fans = w.bsky.addFollowers(ada.did, 250, 'fan');
    await w.importCsv('platform,username\nbluesky,ada.bsky.social\n');
    const tracker = w.tracker();
    await tracker.tick();
    await tracker.followerRound();
    const before = await current(w, 'ada.bsky.social');

    w.bsky.unfollow(fans[0]!.did, ada.did); // the oldest follower: on the last page
    w.bsky.addFollowers(ada.did, 1, 'new');
    w.clock.advance(DAY);
    // The second page fails (the first goes through).
    const path = '/xrpc/app.bsky.graph.getFollowers';
    const served = w.bsky.requestsTo('getFollowers').length;
    let calls = 0;
    const original = w.bsky.faults.next.bind(w.bsky.faults);
    w.bsky.faults.next = (p: string) => (p === path && ++calls === 2 ? { kind: 'status', status: 502 } : original(p));
    assert.deepEqual(await tracker.followerRound(), { failed: 1 });
    assert.deepEqual(await current(w, 'ada.bsky.social'), before, 'nothing visible changed');
    assert.deepEqual(await followerEvents(w), []);

    // A new tracker (a restarted process) takes the pass up where it stopped, after the retry delay.
    w.bsky.faults.next = original;
    const restarted = w.tracker();
    w.clock.advance(6 * 60_000);
    assert.deepEqual(await restarted.followerRound(), { finished: 1 });
    const pages = w.bsky.requestsTo('getFollowers').slice(served);
    assert.equal(pages.filter((r) => r.query.get('cursor') === null).length, 1, 'the first page was not read again');
    const events = await followerEvents(w);
    assert.equal(events.length, 1);
    assert.deepEqual(handles(events[0]!.gained), ['new0.bsky.social']);
    assert.deepEqual(handles(events[0]!.lost), ['fan0.bsky.social']);
  });

  it('X: the ledger equals the bill, and a pass stops at the dollar budget with the rest due the next day', async (t: TestContext) => {
    const w = await trackerWorld(t, {
      env: { X_DAILY_READ_BUDGET: '1000000', X_DAILY_BUDGET_USD: '25', FOLLOWER_LIST_TAGS: 'watch' },
    });
    const jack = w.x.addUser({ username: 'jack' });
    w.x.addFollowers(jack.id, 3_500, 'fan');
    await w.importCsv('username,tags\njack,watch\n');
    const tracker = w.tracker();
    await tracker.tick();
    // $25 a day is 2,500 users: the profile check took one, two pages of 1,000 fit, the third does not.
    assert.deepEqual(await tracker.followerRound(), { budget: 1 });
    assert.equal(w.x.requests.filter((r) => r.path.endsWith('/followers')).length, 2);
    const ledger = async () => {
      const rows: SpendRow[] = await spendRows(w.store.db, { from: '2026-01-01', to: '2027-12-31', platform: 'x' });
      const byDay = new Map<string, { users: number; posts: number }>();
      for (const row of rows) {
        const day = byDay.get(row.day) ?? { users: 0, posts: 0 };
        day[row.kind] += row.resources;
        byDay.set(row.day, day);
      }
      return byDay;
    };
    assert.deepEqual(await ledger(), w.x.bill());
    assert.equal(w.x.bill().get('2026-11-23')?.users, 2_001);
    assert.deepEqual(await current(w, 'jack'), [], 'an unfinished pass shows nothing');

    // Later the same day nothing more is read; the next UTC day the pass goes on from page 3.
    w.clock.advance(60 * 60_000);
    assert.deepEqual(await tracker.followerRound(), {});
    w.clock.current = Date.parse('2026-11-24T00:01:00.000Z');
    assert.deepEqual(await tracker.followerRound(), { finished: 1 });
    assert.equal((await current(w, 'jack')).length, 3_500);
    assert.deepEqual(await ledger(), w.x.bill());
    const pages = w.x.requests.filter((r) => r.path.endsWith('/followers'));
    assert.equal(pages.length, 4);
    assert.equal(pages.filter((r) => r.query.get('pagination_token') === null).length, 1);
  });

  it('the CSV column follower_list switches it on and off', async (t: TestContext) => {
    const w = await trackerWorld(t);
    const jack = w.x.addUser({ username: 'jack' });
    w.x.addFollowers(jack.id, 5, 'fan');
    const ada = w.bsky.addUser({ handle: 'ada.bsky.social' });
    w.bsky.addFollowers(ada.did, 3, 'fan');
    await w.importCsv('platform,username,follower_list\nx,jack,yes\nbluesky,ada.bsky.social,no\n');
    const tracker = w.tracker();
    await tracker.tick();
    assert.deepEqual(await tracker.followerRound(), { finished: 1 });
    assert.equal((await current(w, 'jack')).length, 5);
    assert.deepEqual(await current(w, 'ada.bsky.social'), [], 'switched off by the file');
    await w.importCsv('platform,username,follower_list\nx,jack,off\nbluesky,ada.bsky.social,\n');
    w.clock.advance(DAY);
    assert.deepEqual(await tracker.followerRound(), {}, 'jack switched off; an empty cell left ada off');
    assert.deepEqual(await current(w, 'ada.bsky.social'), []);
  });

  it('X accounts are off unless switched on', async (t: TestContext) => {
    const w = await trackerWorld(t);
    const jack = w.x.addUser({ username: 'jack' });
    w.x.addFollowers(jack.id, 10, 'fan');
    await w.importCsv('username\njack\n');
    const tracker = w.tracker();
    await tracker.tick();
    assert.deepEqual(await tracker.followerRound(), {});
    await w.store.db.updateTable('accounts').set({ follower_list: 1 }).execute();
    assert.deepEqual(await tracker.followerRound(), { finished: 1 });
    assert.equal((await current(w, 'jack')).length, 10);
  });
});
