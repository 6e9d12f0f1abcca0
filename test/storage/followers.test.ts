// Follower passes in the store, on both dialects: pages are marked, a close turns marks into the
// diff, and a pass that does not close (given up, or resumed after a crash) shows nothing or
// counts nothing twice.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { FollowerIdentity } from '../../src/domain/followers.ts';
import { closePass, openPass, recordFollowerPage } from '../../src/storage/follower-passes-repo.ts';
import type { Store } from '../../src/storage/store.ts';
import { createConfig } from '../../src/config.ts';
import { pruneOnce } from '../../src/services/retention.ts';
import { dialectName, freshStores } from '../helpers/store-url.ts';

const DAY = 86_400_000;
const f = (n: number): FollowerIdentity => ({ platformUserId: `did:plc:f${n}`, username: `f${n}.bsky.social` });
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => f(from + i));

async function account(store: Store, name = 'ada'): Promise<number> {
  const row = await store.db
    .insertInto('accounts')
    .values({ platform: 'bluesky', username: name, username_key: name, tracked_since: 0, created_at: 0, updated_at: 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** A whole pass over `pages`, closed at `now`. */
async function pass(store: Store, id: number, pages: FollowerIdentity[][], now: number) {
  const open = await openPass(store.db, id, now, DAY);
  for (const [i, page] of pages.entries())
    assert.equal(
      await recordFollowerPage(store.db, store.caps, open, page, i < pages.length - 1 ? `c${i}` : null),
      true,
    );
  return store.db.transaction().execute((trx) => closePass(trx, open, now, now + DAY));
}

async function current(store: Store, id: number): Promise<string[]> {
  const rows = await store.db
    .selectFrom('followers')
    .select('follower_id')
    .where('account_id', '=', id)
    .where('first_seen', 'is not', null)
    .where('gone_at', 'is', null)
    .orderBy('follower_id')
    .execute();
  return rows.map((r) => r.follower_id);
}

const ids = (list: readonly FollowerIdentity[]) => list.map((x) => x.platformUserId).sort();

describe(`follower passes on ${dialectName}`, () => {
  it('takes the first pass as the baseline and reports exactly who came and who left after it', async (t: TestContext) => {
    const [store] = await freshStores(t);
    const id = await account(store!);
    const first = await pass(store!, id, [range(0, 3), range(3, 5)], 1_000);
    assert.deepEqual(first, { gained: [], lost: [], gainedCount: 0, lostCount: 0, followers: 5, baseline: true });

    // f1 and f3 leave, f7 and f8 follow; f0 is listed twice across pages.
    const second = await pass(
      store!,
      id,
      [
        [f(0), f(2), f(7)],
        [f(0), f(4), f(8)],
      ],
      2_000,
    );
    assert.equal(second.baseline, false);
    assert.deepEqual(ids(second.gained), ['did:plc:f7', 'did:plc:f8']);
    assert.deepEqual(ids(second.lost), ['did:plc:f1', 'did:plc:f3']);
    assert.equal(second.gainedCount, 2);
    assert.equal(second.lostCount, 2);
    assert.equal(second.followers, 5);
    assert.deepEqual(await current(store!, id), ['did:plc:f0', 'did:plc:f2', 'did:plc:f4', 'did:plc:f7', 'did:plc:f8']);

    // f1 comes back: gained again, no longer gone.
    const third = await pass(store!, id, [[f(0), f(1), f(2), f(4), f(7), f(8)]], 3_000);
    assert.deepEqual(ids(third.gained), ['did:plc:f1']);
    assert.equal(third.lostCount, 0);
    const back = await store!.db
      .selectFrom('followers')
      .selectAll()
      .where('account_id', '=', id)
      .where('follower_id', '=', 'did:plc:f1')
      .executeTakeFirstOrThrow();
    assert.equal(Number(back.gained_at), 3_000);
    assert.equal(back.gone_at, null);
    assert.equal(Number(back.first_seen), 1_000);
  });

  it('shows nothing of a pass that has not closed, and resumes it without counting a page twice', async (t: TestContext) => {
    const [store] = await freshStores(t);
    const id = await account(store!);
    await pass(store!, id, [range(0, 4)], 1_000);
    const open = await openPass(store!.db, id, 2_000, DAY);
    await recordFollowerPage(store!.db, store!.caps, open, [f(0), f(9)], 'page2');
    // Nothing visible yet: f9 is pending, f1..f3 are still current.
    assert.deepEqual(await current(store!, id), ['did:plc:f0', 'did:plc:f1', 'did:plc:f2', 'did:plc:f3']);

    // "Crash": a new process opens the pass again and finds the cursor of the next page.
    const resumed = await openPass(store!.db, id, 2_500, DAY);
    assert.equal(resumed.passId, open.passId);
    assert.equal(resumed.cursor, 'page2');
    assert.equal(resumed.pages, 1);
    // The page written before the crash is written again (the platform gave it once more): no harm.
    await recordFollowerPage(store!.db, store!.caps, resumed, [f(0), f(9)], 'page2');
    await recordFollowerPage(store!.db, store!.caps, resumed, [f(1)], null);
    const diff = await store!.db.transaction().execute((trx) => closePass(trx, resumed, 3_000, 3_000 + DAY));
    assert.deepEqual(ids(diff.gained), ['did:plc:f9']);
    assert.deepEqual(ids(diff.lost), ['did:plc:f2', 'did:plc:f3']);
  });

  it('gives up a pass that ran too long; its pending rows never show and go at the next close', async (t: TestContext) => {
    const [store] = await freshStores(t);
    const id = await account(store!);
    await pass(store!, id, [range(0, 2)], 1_000);
    const stale = await openPass(store!.db, id, 2_000, DAY);
    await recordFollowerPage(store!.db, store!.caps, stale, [f(5)], 'next');
    const fresh = await openPass(store!.db, id, 2_000 + DAY, DAY);
    assert.equal(fresh.passId, stale.passId + 1);
    assert.equal(fresh.cursor, null);
    // The old pass can no longer write.
    assert.equal(await recordFollowerPage(store!.db, store!.caps, stale, [f(6)], null), false);
    await recordFollowerPage(store!.db, store!.caps, fresh, range(0, 2), null);
    const diff = await store!.db.transaction().execute((trx) => closePass(trx, fresh, 3 * DAY, 4 * DAY));
    assert.equal(diff.gainedCount + diff.lostCount, 0);
    const all = await store!.db.selectFrom('followers').select('follower_id').where('account_id', '=', id).execute();
    assert.equal(all.length, 2, 'the given-up pass left no row behind');
  });

  it('reports counts beyond the sample of 100', async (t: TestContext) => {
    const [store] = await freshStores(t);
    const id = await account(store!);
    await pass(store!, id, [range(0, 150)], 1_000);
    const diff = await pass(store!, id, [range(150, 400)], 2_000);
    assert.equal(diff.gainedCount, 250);
    assert.equal(diff.lostCount, 150);
    assert.equal(diff.gained.length, 100);
    assert.equal(diff.lost.length, 100);
    assert.equal(diff.followers, 250);
  });

  it('keeps the identities of followers who left FOLLOWER_RETENTION, and current ones for ever', async (t: TestContext) => {
    const [store] = await freshStores(t);
    const id = await account(store!);
    await pass(store!, id, [range(0, 3)], 1_000);
    await pass(store!, id, [[f(0)]], 2_000); // f1 and f2 leave at 2,000
    const retention = createConfig({ FOLLOWER_RETENTION: '90d' }).retention;
    const clock = { now: () => 2_000 + 91 * DAY };
    const report = await pruneOnce(store!, retention, clock, async () => {});
    assert.equal(report.deleted.followers, 2);
    const left = await store!.db.selectFrom('followers').select('follower_id').where('account_id', '=', id).execute();
    assert.deepEqual(
      left.map((r) => r.follower_id),
      ['did:plc:f0'],
    );
  });
});
