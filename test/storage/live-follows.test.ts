// Live follows in the store beside a running follower pass, on both dialects: a follower gained
// on the stream while a pass is halfway is neither gained again nor lost at its close, one lost on
// the stream is not lost again, a page asked for before an unfollow the stream saw does not bring
// the follower back, and a replayed create or delete changes nothing.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { FollowerIdentity } from '../../src/domain/followers.ts';
import { closePass, openPass, recordFollowerPage } from '../../src/storage/follower-passes-repo.ts';
import { takeLiveChanges } from '../../src/storage/live-follow-changes-repo.ts';
import { followMade, followUndone } from '../../src/storage/live-follows-repo.ts';
import type { Store } from '../../src/storage/store.ts';
import { dialectName, freshStores } from '../helpers/store-url.ts';

const DAY = 86_400_000;
const f = (n: number): FollowerIdentity => ({ platformUserId: `did:plc:f${n}`, username: `f${n}.bsky.social` });

async function account(store: Store): Promise<number> {
  const row = await store.db
    .insertInto('accounts')
    .values({
      platform: 'bluesky',
      username: 'ada',
      username_key: 'ada',
      tracked_since: 0,
      created_at: 0,
      updated_at: 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

async function state(store: Store, id: number) {
  const rows = await store.db
    .selectFrom('followers')
    .select(['follower_id', 'gained_at', 'gone_at'])
    .where('account_id', '=', id)
    .where('first_seen', 'is not', null)
    .orderBy('follower_id')
    .execute();
  return rows.map((r) => `${r.follower_id}:${r.gained_at ?? '-'}:${r.gone_at ?? '-'}`);
}

describe(`live follows on ${dialectName}`, () => {
  it('keeps in step with a running pass and changes nothing when frames come again', async (t: TestContext) => {
    const [store] = await freshStores(t);
    const db = store!.db;
    const id = await account(store!);
    const baseline = await openPass(db, id, 1_000, DAY);
    await recordFollowerPage(db, store!.caps, baseline, [f(1), f(2), f(3)], null);
    await db.transaction().execute((trx) => closePass(trx, baseline, 1_000, 1_000 + DAY));

    // f9 follows live (gained), f8 follows and unfollows live (gained, then lost).
    const follow = (n: number, timeUs: number) => ({ followerDid: f(n).platformUserId, rkey: `3k${n}`, timeUs });
    assert.equal(await followMade(db, follow(9, 10), id, 2_000), true);
    assert.equal(await followMade(db, follow(8, 11), id, 2_000), true);
    assert.equal(await followUndone(db, follow(8, 12), 2_100), id);
    // A delete of a record perch never saw created, and replays of what was applied: nothing.
    assert.equal(await followUndone(db, { followerDid: f(1).platformUserId, rkey: '3kold', timeUs: 13 }, 2_200), null);
    assert.equal(await followMade(db, follow(9, 10), id, 2_300), false);
    assert.equal(await followMade(db, follow(8, 11), id, 2_300), false);
    assert.equal(await followUndone(db, follow(8, 12), 2_300), null);
    const live = await takeLiveChanges(db, id, 2_400, 60_000);
    assert.deepEqual(
      [live?.gained.map((x) => x.platformUserId), live?.lost.map((x) => x.platformUserId)],
      [[f(8).platformUserId, f(9).platformUserId], [f(8).platformUserId]],
    );
    assert.equal(await takeLiveChanges(db, id, 2_500, 60_000), null, 'one announcement a minute');

    // A pass reads its first page (f1, f2, f9); then f7 follows live (after the page it would be
    // on) and f9 unfollows live (after the pass saw it); then the last page.
    const next = await openPass(db, id, 5_000, DAY);
    await recordFollowerPage(db, store!.caps, next, [f(1), f(2), f(9)], 'c1');
    assert.equal(await followMade(db, follow(7, 20), id, 5_100), true);
    assert.equal(await followUndone(db, follow(9, 21), 5_200), id);
    await recordFollowerPage(db, store!.caps, next, [f(3)], null);
    const diff = await db.transaction().execute((trx) => closePass(trx, next, 6_000, 6_000 + DAY));
    assert.deepEqual([diff.gainedCount, diff.lostCount], [0, 0], 'the stream announced those already');
    assert.deepEqual(await state(store!, id), [
      'did:plc:f1:-:-',
      'did:plc:f2:-:-',
      'did:plc:f3:-:-',
      'did:plc:f7:5100:-',
      'did:plc:f8:2000:2100',
      'did:plc:f9:2000:5200',
    ]);
  });

  it('does not take a follower for back when the page was asked for before the stream saw them leave', async (t: TestContext) => {
    const [store] = await freshStores(t);
    const db = store!.db;
    const id = await account(store!);
    const baseline = await openPass(db, id, 1_000, DAY);
    await recordFollowerPage(db, store!.caps, baseline, [f(1), f(2)], null);
    await db.transaction().execute((trx) => closePass(trx, baseline, 1_000, 1_000 + DAY));
    const follow = (n: number, timeUs: number) => ({ followerDid: f(n).platformUserId, rkey: `3k${n}`, timeUs });
    // f3 follows live; f4 followed live and left long ago, and follows again now (the page shows it).
    assert.equal(await followMade(db, follow(3, 10), id, 2_000), true);
    assert.equal(await followMade(db, follow(4, 11), id, 2_000), true);
    assert.equal(await followUndone(db, follow(4, 12), 2_100), id);

    // The pass asks for its page at 5,000 (f1, f2, f3, f4); the stream sees f3 unfollow at 5,100,
    // and the page is written after that.
    const next = await openPass(db, id, 4_000, DAY);
    assert.equal(await followUndone(db, follow(3, 20), 5_100), id);
    await recordFollowerPage(db, store!.caps, next, [f(1), f(2), f(3), f(4)], null, 5_000);
    const diff = await db.transaction().execute((trx) => closePass(trx, next, 6_000, 6_000 + DAY));
    assert.deepEqual(
      diff.gained.map((x) => x.platformUserId),
      [f(4).platformUserId],
      'f4, seen leaving before the page was asked for, is back; f3 left after it and stays gone',
    );
    assert.equal(diff.lostCount, 0, 'the stream announced f3 already');
    assert.deepEqual(await state(store!, id), [
      'did:plc:f1:-:-',
      'did:plc:f2:-:-',
      'did:plc:f3:2000:5100',
      'did:plc:f4:6000:-',
    ]);
  });
});
