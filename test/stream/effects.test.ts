// What Jetstream frames do, end to end over real WebSockets and real HTTP on a real store, with
// TRACK_INTERVAL=1h (so whatever happens within seconds came from the stream): a post stored as
// polling stores it and announced, a delete, renames with and without a handle in the frame,
// takedowns and deactivations, and frames of DIDs that are not tracked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBlueskyClient } from '../../src/platforms/bluesky.ts';
import { streamHarness, subscribed, until } from './harness.ts';

describe('Bluesky in real time', () => {
  it('stores and announces a post within 2 s of its frame, exactly as polling would store it; a delete marks it', async (t) => {
    const h = await streamHarness(t);
    const ada = h.bsky.addUser({ handle: 'ada.bsky.social', followers: 10 });
    await h.importHandles('ada.bsky.social');
    await subscribed(h, ada.did);
    const feedReads = h.bsky.requestsTo('getAuthorFeed').length;

    const started = Date.now();
    const post = h.bsky.addPost(ada.did, {
      text: 'hello from the stream',
      tags: ['perch'],
      links: ['https://example.com/a'],
      langs: ['en'],
    });
    await until(async () => (await h.events('account.posted')).length === 1, 2_000, 'account.posted');
    assert.ok(Date.now() - started < 2_000);
    const [posted] = await h.events('account.posted');
    assert.deepEqual(posted?.data.post, {
      id: post.uri,
      url: `https://bsky.app/profile/ada.bsky.social/post/${post.rkey}`,
      createdAt: post.createdAt,
      text: post.text,
      via: 'stream',
    });
    assert.equal((posted?.data.account as { username: string }).username, 'ada.bsky.social');
    assert.equal(h.bsky.requestsTo('getAuthorFeed').length, feedReads, 'no timeline read for it');
    // The stored row is the one polling stores: the same mapping of the same post.
    const polled = await createBlueskyClient({ baseUrl: h.bsky.url }).fetchPosts(ada.did, null, 10);
    const row = await h.store.db
      .selectFrom('posts')
      .selectAll()
      .where('post_id', '=', post.uri)
      .executeTakeFirstOrThrow();
    const expected = polled.value[0]!;
    assert.equal(row.text, expected.text);
    assert.equal(row.url, expected.url);
    assert.equal(Number(row.created_at), Date.parse(expected.createdAt));
    assert.deepEqual(JSON.parse(row.hashtags), expected.hashtags);
    assert.deepEqual(JSON.parse(row.domains), expected.domains);
    assert.equal(row.lang, 'en');
    assert.equal(Number(row.is_reply), 0);

    h.bsky.deletePost(post.uri);
    await until(async () => (await h.events('post.deleted')).length === 1, 2_000, 'post.deleted');
    assert.equal((await h.posts(ada.did))[0]?.status, 'deleted');
    assert.equal((await h.events('post.deleted'))[0]?.data.postId, post.uri);
  });

  it('an identity frame, with or without a handle, has the handle read again: a rename', async (t) => {
    const h = await streamHarness(t);
    const ada = h.bsky.addUser({ handle: 'ada.bsky.social' });
    await h.importHandles('ada.bsky.social');
    await subscribed(h, ada.did);
    h.bsky.rename(ada.did, 'lovelace.bsky.social');
    await until(async () => (await h.accountRow(ada.did))?.username === 'lovelace.bsky.social', 3_000, 'rename');
    // Without a handle in the frame (and with handle.invalid): the AppView says what it is.
    h.unlink();
    h.bsky.rename(ada.did, 'countess.bsky.social');
    h.jetstream.identity(ada.did);
    await until(async () => (await h.accountRow(ada.did))?.username === 'countess.bsky.social', 3_000, 'rename 2');
    const renames = (await h.events('account.renamed')).map((e) => [e.data.from, e.data.to]);
    assert.deepEqual(renames, [
      ['ada.bsky.social', 'lovelace.bsky.social'],
      ['lovelace.bsky.social', 'countess.bsky.social'],
    ]);
  });

  it('takendown is suspended, deactivated is not_found, back to active is checked again; untracked DIDs and malformed frames change nothing', async (t) => {
    const h = await streamHarness(t);
    const ada = h.bsky.addUser({ handle: 'ada.bsky.social' });
    const stranger = h.bsky.addUser({ handle: 'stranger2.bsky.social' });
    await h.importHandles('ada.bsky.social');
    await subscribed(h, ada.did);
    h.bsky.takedown(ada.did);
    await until(async () => (await h.accountRow(ada.did))?.status === 'suspended', 2_000, 'suspended');
    h.bsky.restore(ada.did);
    await until(async () => (await h.accountRow(ada.did))?.status === 'active', 3_000, 'active again');
    h.bsky.deactivate(ada.did);
    await until(async () => (await h.accountRow(ada.did))?.status === 'not_found', 2_000, 'not_found');
    const changes = (await h.events('account.status_changed')).map((e) => [e.data.from, e.data.to]);
    assert.deepEqual(changes, [
      ['active', 'suspended'],
      ['suspended', 'active'],
      ['active', 'not_found'],
    ]);

    // Frames the server should not have sent (another DID) and frames that are not frames.
    const before = await h.events();
    const frame = (did: string, rkey: string) =>
      JSON.stringify({
        did,
        time_us: Date.now() * 1000,
        kind: 'commit',
        commit: {
          rev: 'x',
          operation: 'create',
          collection: 'app.bsky.feed.post',
          rkey,
          record: { text: 'hi', createdAt: new Date().toISOString() },
        },
      });
    h.jetstream.raw(frame(stranger.did, '3lstranger1'));
    h.jetstream.raw('{"did": 12}');
    h.jetstream.raw('not json at all');
    h.jetstream.raw(JSON.stringify({ did: ada.did, time_us: 5, kind: 'commit', commit: { operation: 'explode' } }));
    await until(
      // The posts shard's own (the follows stream, on every DID, is sent them too).
      () => h.logs.filter((l) => l.includes('malformed frame skipped') && l.includes('"stream":"posts/')).length === 3,
      2_000,
      'malformed logged',
    );
    h.bsky.restore(ada.did);
    await until(async () => (await h.accountRow(ada.did))?.status === 'active', 3_000, 'active');
    const after = await h.events();
    assert.deepEqual(
      after.slice(before.length).map((e) => e.type),
      ['account.status_changed'],
      'only the restore: nothing from the stranger or the malformed frames',
    );
    assert.equal((await h.posts(stranger.did)).length, 0);
  });
});
