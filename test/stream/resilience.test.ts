// The stream when things go wrong or change: a new DID joins its shard without reconnecting the
// others, the stream is cut while posts are made (polling covers it, each post stored and
// announced once, health warns meanwhile), and a cursor older than Jetstream keeps is a gap that
// is backfilled from the AppView, as is a resume the server clamped to a later cursor.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { POSTS_STREAM, shardOf } from '../../src/domain/stream-shards.ts';
import { streamHarness, subscribed, until, type StreamHarness } from './harness.ts';

/** DIDs that fall in `shard` of `shards`, in a stable order. */
function didsIn(shard: number, shards: number, n: number, salt: string): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < n; i += 1) {
    const did = `did:plc:${salt}${String(i).padStart(24 - salt.length, '0')}`;
    if (shardOf(did, shards) === shard) found.push(did);
  }
  return found;
}

const streamCheck = async (h: StreamHarness) =>
  ((await h.health()).checks as Record<string, { status: string; gaps?: number; notes?: string[] }>)['bluesky-stream']!;

/** Each post's account.posted events, by post id. */
async function announced(h: StreamHarness): Promise<Map<string, string[]>> {
  const byPost = new Map<string, string[]>();
  for (const event of await h.events('account.posted')) {
    const post = event.data.post as { id: string; via: string };
    byPost.set(post.id, [...(byPost.get(post.id) ?? []), post.via]);
  }
  return byPost;
}

describe('the stream under change and failure', () => {
  it('a newly imported DID joins its shard with one options_update; the other shard is not touched', async (t) => {
    const h = await streamHarness(t, { shardSize: 2 });
    const [a0, a1] = didsIn(0, 2, 2, 'aaa');
    const [b0, b1] = didsIn(1, 2, 2, 'bbb');
    for (const [i, did] of [a0, a1, b0, b1].entries()) h.bsky.addUser({ did: did!, handle: `user${i}.bsky.social` });
    await h.importHandles('user0.bsky.social', 'user1.bsky.social', 'user2.bsky.social');
    for (const did of [a0, a1, b0]) await subscribed(h, did!);
    // The posts shards' connections (the follows stream has its own).
    const posts = () => h.jetstream.connections.filter((c) => c.collections.includes('app.bsky.feed.post'));
    const open = posts().filter((c) => c.closedAt === null);
    assert.equal(open.length, 2, 'two shards, two connections');
    const opened = posts().length;

    await h.importHandles('user3.bsky.social');
    await subscribed(h, b1!);
    assert.equal(posts().length, opened, 'no connection opened');
    assert.ok(
      open.every((c) => c.closedAt === null),
      'none closed',
    );
    assert.deepEqual(open.map((c) => c.optionsUpdates).sort(), [1, 2], 'only one shard re-sent its options');
    assert.deepEqual(open.map((c) => c.wantedDids).sort(), [2, 2]);
    const post = h.bsky.addPost(b1!, { text: 'I joined' });
    await until(async () => (await announced(h)).has(post.uri), 2_000, 'the new DID’s post');
  });

  it('cut while posts are made: polling covers the shard, health warns, and after it is back each post is stored and announced once', async (t) => {
    const h = await streamHarness(t);
    const ada = h.bsky.addUser({ handle: 'ada.bsky.social' });
    h.bsky.addPost(ada.did, { text: 'before perch' });
    await h.importHandles('ada.bsky.social');
    await subscribed(h, ada.did);
    assert.equal((await streamCheck(h)).status, 'pass');

    h.jetstream.down();
    await until(async () => (await streamCheck(h)).status === 'warn', 3_000, 'health warns');
    const a = h.bsky.addPost(ada.did, { text: 'made while the stream is down' });
    const b = h.bsky.addPost(ada.did, { text: 'and another' });
    // The next check of the account reads its timeline: the shard does not cover it now.
    const row = await h.accountRow(ada.did);
    await h.store.db.updateTable('accounts').set({ next_check_at: Date.now() }).where('id', '=', row!.id).execute();
    h.tracker.notify();
    await until(async () => (await announced(h)).size === 2, 5_000, 'polling found both');
    const c = h.bsky.addPost(ada.did, { text: 'made just before it comes back' });
    h.jetstream.up();
    await until(async () => (await announced(h)).has(c.uri), 15_000, 'the stream replays what it missed');
    await until(async () => (await streamCheck(h)).status === 'pass', 5_000, 'health passes again');

    const byPost = await announced(h);
    assert.deepEqual(byPost.get(a.uri), ['poll']);
    assert.deepEqual(byPost.get(b.uri), ['poll']);
    assert.deepEqual(byPost.get(c.uri), ['stream']);
    assert.equal(byPost.size, 3, 'the post from before perch is the baseline, not news');
    const stored = (await h.posts(ada.did)).map((p) => p.post_id);
    assert.equal(stored.length, 4);
    assert.equal(new Set(stored).size, 4);
    assert.ok(
      h.jetstream.connections.filter((x) => x.collections.includes('app.bsky.feed.post')).at(-1)!.cursor! <
        Date.parse(c.indexedAt) * 1000,
      'resumed from before the missed frames',
    );
  });

  it('a cursor older than Jetstream keeps is a gap: health says so and the posts are read from the AppView', async (t) => {
    const h = await streamHarness(t);
    const ada = h.bsky.addUser({ handle: 'ada.bsky.social' });
    h.bsky.addPost(ada.did, { text: 'before perch' });
    await h.importHandles('ada.bsky.social');
    await subscribed(h, ada.did);
    await h.stream.stop();
    // perch is away for 40 hours: Jetstream has forgotten what happened meanwhile.
    const missed = h.bsky.addPost(ada.did, { text: 'posted while perch was away' });
    h.jetstream.forgetBefore(Date.now() * 1000 + 1_000_000);
    await h.store.db
      .updateTable('stream_shards')
      .set({ cursor_us: (Date.now() - 40 * 3_600_000) * 1000 })
      .where('stream', '=', POSTS_STREAM)
      .execute();
    const feedReads = h.bsky.requestsTo('getAuthorFeed').length;
    h.stream.start();
    await until(async () => ((await streamCheck(h)).gaps ?? 0) === 1, 5_000, 'the gap in health');
    await until(async () => (await announced(h)).has(missed.uri), 5_000, 'the backfill');
    assert.deepEqual((await announced(h)).get(missed.uri), ['poll']);
    assert.ok(h.bsky.requestsTo('getAuthorFeed').length > feedReads, 'read from getAuthorFeed');
    await until(async () => (await streamCheck(h)).status === 'pass', 5_000, 'the gap closes');
    const later = h.bsky.addPost(ada.did, { text: 'and live again' });
    await until(async () => (await announced(h)).has(later.uri), 2_000, 'live after the gap');
  });

  it('a resume that Jetstream clamps silently is a gap too: the posts it forgot are read from the AppView', async (t) => {
    const h = await streamHarness(t);
    const ada = h.bsky.addUser({ handle: 'ada.bsky.social' });
    await h.importHandles('ada.bsky.social');
    await subscribed(h, ada.did);
    const seen = h.bsky.addPost(ada.did, { text: 'seen on the stream' });
    await until(async () => (await announced(h)).has(seen.uri), 2_000, 'the first post');
    // Jetstream goes down and comes back without the frames of the last minutes (a restart that
    // lost its buffer, or a fallback host that keeps less): a cursor of a few seconds is clamped.
    h.jetstream.down();
    const missed = h.bsky.addPost(ada.did, { text: 'posted while Jetstream was away' });
    h.jetstream.forgetBefore(Date.now() * 1000 + 1_000);
    const after = h.bsky.addPost(ada.did, { text: 'posted after it came back' });
    const feedReads = h.bsky.requestsTo('getAuthorFeed').length;
    h.jetstream.up();
    await until(async () => ((await streamCheck(h)).gaps ?? 0) === 1, 10_000, 'the gap in health');
    await until(async () => (await announced(h)).has(missed.uri), 5_000, 'the backfill');
    assert.deepEqual((await announced(h)).get(missed.uri), ['poll']);
    assert.ok(h.bsky.requestsTo('getAuthorFeed').length > feedReads, 'read from getAuthorFeed');
    await until(async () => (await announced(h)).has(after.uri), 5_000, 'the frame after the clamp');
    assert.equal((await announced(h)).get(after.uri)?.length, 1, 'announced once, by the stream or the backfill');
    assert.equal((await announced(h)).get(seen.uri)?.length, 1);
    await until(async () => (await streamCheck(h)).status === 'pass', 5_000, 'the gap closes');
    // A plain reconnect whose replay starts at the cursor is no gap.
    h.jetstream.dropAll();
    const live = h.bsky.addPost(ada.did, { text: 'live again' });
    await until(async () => (await announced(h)).has(live.uri), 5_000, 'live after the reconnect');
    assert.equal((await streamCheck(h)).gaps, 1);
  });
});
