// Polling beside the stream: a post polling finds is announced (account.posted, via poll) on both
// platforms, except at an account's first timeline read (the baseline); a Bluesky account that a
// healthy shard covers keeps its profile check but skips its timeline, counted as a read saved.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { trackerWorld } from '../helpers/tracker.ts';
import { streamHarness, subscribed, until } from './harness.ts';

const HOUR = 3_600_000;

describe('polling beside the stream', () => {
  it('announces the posts a check finds as account.posted via poll, not the first read', async (t) => {
    const w = await trackerWorld(t);
    const jack = w.x.addUser({ username: 'jack', followers: 5 });
    w.x.addPost(jack.id, { text: 'an old tweet' });
    const ada = w.bsky.addUser({ handle: 'ada.bsky.social' });
    w.bsky.addPost(ada.did, { text: 'an old skeet' });
    await w.importCsv('username\njack\nada.bsky.social\n');
    const tracker = w.tracker();
    await tracker.tick();
    const posted = async () =>
      (await w.store.db.selectFrom('events').select('data').where('type', '=', 'account.posted').execute()).map(
        (e) => JSON.parse(e.data) as { post: { text: string; via: string }; account: { username: string } },
      );
    assert.deepEqual(await posted(), [], 'what the first read finds is the baseline');
    const tweet = w.x.addPost(jack.id, { text: 'a new tweet' });
    const skeet = w.bsky.addPost(ada.did, { text: 'a new skeet' });
    w.clock.advance(HOUR);
    await tracker.tick();
    const events = await posted();
    assert.deepEqual(events.map((e) => [e.account.username, e.post.text, e.post.via]).sort(), [
      ['ada.bsky.social', skeet.text, 'poll'],
      ['jack', tweet.text, 'poll'],
    ]);
    // The same posts read again are not news.
    w.clock.advance(HOUR);
    await tracker.tick();
    assert.equal((await posted()).length, 2);
  });

  it('skips the timeline of an account a healthy shard covers, and counts the read saved', async (t) => {
    const h = await streamHarness(t);
    const ada = h.bsky.addUser({ handle: 'ada.bsky.social', followers: 3 });
    h.bsky.addPost(ada.did, { text: 'before perch' });
    await h.importHandles('ada.bsky.social');
    await subscribed(h, ada.did);
    const post = h.bsky.addPost(ada.did, { text: 'on the stream' });
    await until(async () => (await h.posts(ada.did)).length === 2, 2_000, 'the stream stored it');
    h.bsky.updateUser(ada.did, { followers: 4 });
    const feedReads = h.bsky.requestsTo('getAuthorFeed').length;
    const row = await h.accountRow(ada.did);
    await h.store.db.updateTable('accounts').set({ next_check_at: Date.now() }).where('id', '=', row!.id).execute();
    h.tracker.notify();
    await until(
      async () =>
        Number(
          (await h.store.db.selectFrom('accounts').select('followers').where('id', '=', row!.id).executeTakeFirst())
            ?.followers,
        ) === 4,
      5_000,
      'the profile check',
    );
    assert.equal(h.bsky.requestsTo('getAuthorFeed').length, feedReads, 'no timeline read');
    const saved = await h.deps.metrics.getSingleMetric('perch_stream_timeline_reads_saved_total')?.get();
    assert.equal(saved?.values.find((v) => v.labels.platform === 'bluesky')?.value, 1);
    const stream = await h.deps.metrics.getSingleMetric('perch_stream_frames_total')?.get();
    assert.ok((stream?.values.find((v) => v.labels.kind === 'commit')?.value ?? 0) >= 1);
    assert.equal((await h.events('account.posted')).length, 1, `announced once: ${post.uri}`);
  });
});
