// A follower pass killed halfway (SIGKILL of a real `perch worker`) resumes in the next process from
// the page cursor it kept, and reports nothing twice: one account.followers_changed with exactly
// who came and who left. The local AppView's follower pages are slow (a small rate limit), so the
// kill lands with pages written and pages to go.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { perchProcesses } from '../helpers/perch-processes.ts';
import { until } from '../stream/harness.ts';

const FANS = 3_000;

test(
  'a follower pass SIGKILLed halfway resumes from its page cursor and reports nothing twice',
  { timeout: 60_000 },
  async (t) => {
    const bsky = await startFakeBluesky();
    const perch = await perchProcesses(t, [bsky]);
    const { store } = perch;
    const ada = bsky.addUser({ handle: 'ada.bsky.social' });
    const fans = bsky.addFollowers(ada.did, FANS, 'fan');
    // Tracked and resolved, with a finished baseline pass of every fan: the next pass is due now.
    const now = Date.now();
    const { id } = await store.db
      .insertInto('accounts')
      .values({
        platform: 'bluesky',
        username: 'ada.bsky.social',
        username_key: 'ada.bsky.social',
        platform_user_id: ada.did,
        status: 'active',
        followers: FANS,
        tracked_since: now,
        next_check_at: now + 3_600_000,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (let at = 0; at < FANS; at += 500)
      await store.db
        .insertInto('followers')
        .values(
          fans.slice(at, at + 500).map((f) => ({
            account_id: id,
            follower_id: f.did,
            handle: f.handle,
            first_seen: now - 86_400_000,
            gained_at: null,
            gone_at: null,
            seen_pass: 1,
            pass_handle: f.handle,
          })),
        )
        .execute();
    await store.db
      .insertInto('follower_passes')
      .values({ account_id: id, pass_id: 1, finished_at: now - 86_400_000, followers: FANS, next_at: 0 })
      .execute();

    // Since the baseline: five left, seven came.
    const left = [fans[10]!, fans[900]!, fans[1_500]!, fans[2_222]!, fans[2_999]!];
    for (const fan of left) bsky.unfollow(fan.did, ada.did);
    const came = bsky.addFollowers(ada.did, 7, 'new');
    bsky.setRateLimit('getFollowers', 6, 5_000);
    const env = {
      ...perch.env,
      TRACK_INTERVAL: '1h',
      TRACK_LEASE: '2s',
      BLUESKY_API_BASE_URL: bsky.url,
      X_API_BASE_URL: 'http://127.0.0.1:9',
    };
    const pass = () =>
      store.db.selectFrom('follower_passes').selectAll().where('account_id', '=', id).executeTakeFirstOrThrow();

    const first = await perch.start('worker', env);
    await until(async () => Number((await pass()).pages) >= 4, 20_000, 'pages written');
    first.child.kill('SIGKILL');
    await first.exited;
    const killed = await pass();
    assert.equal(Number(killed.pass_id), 2);
    assert.notEqual(killed.started_at, null, 'the pass was running');
    assert.notEqual(killed.cursor, null, 'its page cursor is kept');
    assert.ok(Number(killed.pages) < 31, 'with pages to go');
    const events = () =>
      store.db.selectFrom('events').select('data').where('type', '=', 'account.followers_changed').execute();
    assert.deepEqual(await events(), [], 'nothing reported by a pass that did not finish');

    bsky.setRateLimit('getFollowers', null);
    const askedBefore = bsky.requestsTo('getFollowers').length;
    await perch.start('worker', env);
    await until(async () => (await pass()).started_at === null, 30_000, 'the pass finished');
    const asked = bsky.requestsTo('getFollowers').slice(askedBefore);
    assert.equal(asked[0]?.query.get('cursor'), killed.cursor, 'resumed at the kept page');
    // 3,002 followers are 31 pages; at most the page in flight at the kill is asked again.
    assert.ok(asked.length <= 31 - Number(killed.pages) + 1, `${asked.length} pages asked after the restart`);

    const rows = await events();
    assert.equal(rows.length, 1, 'one event');
    const data = JSON.parse(rows[0]!.data) as { gained: { username: string }[]; lost: { username: string }[] };
    const names = (list: { username: string }[]) => list.map((f) => f.username).sort();
    assert.deepEqual(names(data.gained), came.map((f) => f.handle).sort());
    assert.deepEqual(names(data.lost), left.map((f) => f.handle).sort());
    assert.equal(Number((await pass()).followers), FANS - left.length + came.length);
  },
);
