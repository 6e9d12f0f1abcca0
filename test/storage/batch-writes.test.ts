// The shared write path of polled and streamed posts in batches: insertPosts and recordEvents run
// a batch of any size as a few multi-row statements, return exactly the new rows, stay idempotent
// on a replay, and keep each account to its newest posts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewEvent } from '../../src/domain/events.ts';
import type { Post } from '../../src/domain/post.ts';
import { recordEvents } from '../../src/storage/events-repo.ts';
import { insertPosts } from '../../src/storage/posts-repo.ts';
import { pieceSizes } from '../../src/storage/prepared.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { dialectName, freshStoreUrl, testStoreOptions, type TestStoreUrl } from '../helpers/store-url.ts';

const post = (accountId: number, n: number, createdAt = 1_000_000 + n * 1_000): Post => ({
  accountId,
  id: `at://did:plc:a${accountId}/app.bsky.feed.post/${n}`,
  createdAt,
  text: `post ${n} ✨`,
  url: null,
  lang: 'en',
  sentiment: 0.5,
  isRepost: false,
  isReply: n % 2 === 0,
  likes: n,
  reposts: 0,
  replies: 0,
  quotes: 0,
  hashtags: ['a'],
  mentions: [],
  domains: ['example.com'],
  fetchedAt: 5_000_000,
  metricsObservedAt: 5_000_000,
  status: 'live',
  statusAt: null,
  metricsHistory: [],
});

describe(`batch writes on ${dialectName}`, () => {
  let location: TestStoreUrl;
  let store: Store;
  before(async () => {
    location = await freshStoreUrl();
    store = await openStore(location.url, testStoreOptions);
    await store.db
      .insertInto('accounts')
      .values(
        [1, 2, 3].map((i) => ({
          platform: 'bluesky',
          username: `u${i}.bsky.social`,
          username_key: `u${i}.bsky.social`,
          platform_user_id: `did:plc:a${i}`,
          status: 'active',
          tracked_since: 0,
          next_check_at: 0,
          created_at: 0,
          updated_at: 0,
        })),
      )
      .execute();
  });
  after(async () => {
    await store.close();
    await location.drop();
  });

  it('splits a batch into power-of-two pieces of at most the largest size', () => {
    assert.deepEqual(pieceSizes(500, 1_454), [256, 128, 64, 32, 16, 4]);
    assert.deepEqual(pieceSizes(3_000, 1_000), [512, 512, 512, 512, 512, 256, 128, 32, 16, 8]);
    assert.deepEqual(pieceSizes(1, 100), [1]);
    assert.deepEqual(pieceSizes(0, 100), []);
    for (const n of [1, 7, 37, 499, 1_455])
      assert.equal(
        pieceSizes(n, 1_454).reduce((a, b) => a + b, 0),
        n,
      );
  });

  it('stores a batch of odd size exactly, returns only what was new, and changes nothing on a replay', async () => {
    const first = Array.from({ length: 37 }, (_, i) => post(1 + (i % 2), i));
    const added = await insertPosts(store.db, store.caps, first, 200);
    assert.deepEqual(added, first);
    const replay = [...first.slice(10, 20), post(1, 100), ...first.slice(0, 3)];
    const again = await insertPosts(store.db, store.caps, replay, 200);
    assert.deepEqual(
      again.map((p) => p.id),
      [post(1, 100).id],
    );
    const rows = await store.db.selectFrom('posts').selectAll().where('post_id', '=', first[36]!.id).execute();
    assert.equal(rows.length, 1);
    assert.deepEqual(
      { ...rows[0], account_id: Number(rows[0]!.account_id), created_at: Number(rows[0]!.created_at) },
      {
        account_id: 1,
        post_id: first[36]!.id,
        created_at: first[36]!.createdAt,
        text: 'post 36 ✨',
        url: null,
        lang: 'en',
        sentiment: 0.5,
        is_repost: 0,
        is_reply: 1,
        likes: 36,
        reposts: 0,
        replies: 0,
        quotes: 0,
        hashtags: '["a"]',
        mentions: '[]',
        domains: '["example.com"]',
        fetched_at: 5_000_000,
        metrics_observed_at: 5_000_000,
        status: 'live',
        status_at: null,
        metrics_history: '[]',
      },
    );
  });

  it('keeps each account touched by a batch to its newest posts, a tie with the last one kept included', async () => {
    // Account 3: 6 posts, two of them at the same moment in 3rd and 4th place; a cap of 3 keeps 4.
    const times = [60, 50, 40, 40, 20, 10];
    const batch = times.map((t, i) => post(3, 200 + i, t * 1_000));
    const added = await insertPosts(store.db, store.caps, [...batch, post(2, 300)], 3);
    assert.equal(added.length, 7);
    const kept = await store.db
      .selectFrom('posts')
      .select('created_at')
      .where('account_id', '=', 3)
      .orderBy('created_at', 'desc')
      .execute();
    assert.deepEqual(
      kept.map((r) => Number(r.created_at)),
      [60_000, 50_000, 40_000, 40_000],
    );
    // Account 2 was in the batch too: trimmed to its 3 newest; account 1 was not: left alone.
    const counts = await store.db
      .selectFrom('posts')
      .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('account_id')
      .orderBy('account_id')
      .execute();
    assert.deepEqual(
      counts.map((r) => [Number(r.account_id), Number(r.n)]),
      [
        [1, 20],
        [2, 3],
        [3, 4],
      ],
    );
  });

  it('records a batch of events of odd size with growing seqs and the data as stored', async () => {
    const events: NewEvent[] = Array.from({ length: 21 }, (_, i) => ({
      type: 'account.posted',
      accountId: 1,
      account: { id: 'acc_1', platform: 'bluesky', username: 'U1.bsky.social', platformUserId: 'did:plc:a1' },
      data: { post: { id: `p${i}`, via: 'stream' } },
    }));
    const stored = await store.db.transaction().execute((trx) => recordEvents(trx, store.caps, events, 7_000));
    assert.equal(stored.length, 21);
    const rows = await store.db.selectFrom('events').selectAll().orderBy('seq').execute();
    assert.deepEqual(
      rows.map((r) => [Number(r.seq), r.id]),
      stored.map((s) => [s.seq, s.id]),
    );
    assert.equal(new Set(stored.map((s) => s.seq)).size, 21);
    for (const [i, row] of rows.entries()) {
      assert.equal(row.username_key, 'u1.bsky.social');
      assert.equal(row.platform, 'bluesky');
      assert.deepEqual(JSON.parse(row.data), { account: events[i]!.account, post: { id: `p${i}`, via: 'stream' } });
      assert.deepEqual(stored[i]!.data, JSON.parse(row.data));
    }
  });
});
