// Both clients against the local simulators over real HTTP: post lookups in the platforms' wire
// formats (X's partial `errors`, Bluesky's silent omissions, batch sizes), every request of a
// call past the caller's pacer, and only http(s) links kept.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { createBlueskyClient } from '../../src/platforms/bluesky.ts';
import {
  PlatformError,
  type PostLookupOutcome,
  type RateLimitInfo,
  type RequestPacer,
} from '../../src/platforms/types.ts';
import { createXClient } from '../../src/platforms/x.ts';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeX } from '../../src/simulators/x-server.ts';

const START = Date.parse('2026-03-01T12:00:00.000Z');
const clock = { now: () => START };

async function xSetup(t: TestContext) {
  const fake = await startFakeX({ clock });
  t.after(() => fake.close());
  return { fake, client: createXClient({ baseUrl: fake.url, bearerToken: 'test-x-token', now: clock.now }) };
}

async function bskySetup(t: TestContext) {
  const fake = await startFakeBluesky({ clock });
  t.after(() => fake.close());
  return { fake, client: createBlueskyClient({ baseUrl: fake.url, now: clock.now }) };
}

/** A pacer that lets `allow` requests go and records what each answer said. */
function countingPacer(allow = Infinity): RequestPacer & { asked: number; told: (RateLimitInfo | null)[] } {
  const pacer = {
    asked: 0,
    told: [] as (RateLimitInfo | null)[],
    async before() {
      pacer.asked += 1;
      return pacer.asked <= allow;
    },
    async after(rateLimit: RateLimitInfo | null) {
      pacer.told.push(rateLimit);
    },
  };
  return pacer;
}

const likesOf = (outcome: PostLookupOutcome | undefined): number => {
  assert.equal(outcome?.kind, 'found', JSON.stringify(outcome));
  return (outcome as { post: { likes: number } }).post.likes;
};

describe('X post lookups (GET /2/tweets?ids=)', () => {
  it('reads current metrics with the timeline fields, and maps the partial errors array', async (t) => {
    const { fake, client } = await xSetup(t);
    const jack = fake.addUser({ username: 'jack' });
    const shy = fake.addUser({ username: 'shy' });
    const kept = fake.addPost(jack.id, { text: 'still here', likes: 3, hashtags: ['perch'] });
    const gone = fake.addPost(jack.id, { text: 'regretted' });
    const hidden = fake.addPost(shy.id, { text: 'soon private' });
    fake.updatePost(kept.id, { likes: 503, reposts: 7 });
    fake.deletePost(gone.id);
    fake.updateUser(shy.id, { protected: true });

    const result = await client.lookupPosts([kept.id, gone.id, hidden.id, kept.id]);
    assert.equal(likesOf(result.value.get(kept.id)), 503);
    const post = (result.value.get(kept.id) as { post: { reposts: number; hashtags: string[]; url: string } }).post;
    assert.equal(post.reposts, 7);
    assert.deepEqual(post.hashtags, ['perch']);
    assert.equal(post.url, `https://x.com/i/web/status/${kept.id}`);
    assert.equal(result.value.get(gone.id)?.kind, 'deleted');
    assert.match((result.value.get(gone.id) as { reason: string }).reason, /Could not find tweet/);
    assert.equal(result.value.get(hidden.id)?.kind, 'hidden');
    assert.equal(result.reads, 1, 'X bills only the post it returned');
    assert.ok(result.rateLimit, 'x-rate-limit-* read');
    const [request] = fake.requests;
    assert.equal(request?.path, '/2/tweets');
    assert.deepEqual(request?.query.get('ids')?.split(','), [kept.id, gone.id, hidden.id]);
    assert.deepEqual(request?.query.get('tweet.fields')?.split(',').sort(), [
      'created_at',
      'entities',
      'in_reply_to_user_id',
      'lang',
      'public_metrics',
      'referenced_tweets',
    ]);
  });

  it('asks in batches of at most 100 ids, never sends a malformed id, and answers every id', async (t) => {
    const { fake, client } = await xSetup(t);
    const jack = fake.addUser({ username: 'jack' });
    const ids = Array.from({ length: 230 }, (_, i) => fake.addPost(jack.id, { text: `post ${i}`, likes: i }).id);
    const result = await client.lookupPosts([...ids, 'not-an-id']);
    assert.deepEqual(
      fake.requests.map((r) => r.query.get('ids')?.split(',').length),
      [100, 100, 30],
    );
    assert.equal(result.value.size, 231);
    assert.equal(likesOf(result.value.get(ids[229]!)), 229);
    assert.equal(result.value.get('not-an-id')?.kind, 'unknown');
    assert.equal(result.reads, 230);
  });

  it('only errors (every post gone) is an answer, not a failure', async (t) => {
    const { fake, client } = await xSetup(t);
    const jack = fake.addUser({ username: 'jack' });
    const post = fake.addPost(jack.id, { text: 'x' });
    fake.deletePost(post.id);
    const result = await client.lookupPosts([post.id]);
    assert.equal(result.value.get(post.id)?.kind, 'deleted');
    assert.equal(result.reads, 0);
  });

  it('each request passes the pacer; a refused request fails the call as rate_limited with the reads so far', async (t) => {
    const { fake, client } = await xSetup(t);
    const jack = fake.addUser({ username: 'jack' });
    const ids = Array.from({ length: 150 }, (_, i) => fake.addPost(jack.id, { text: `post ${i}` }).id);
    const pacer = countingPacer(1);
    const error = await client.lookupPosts(ids, { pacer }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof PlatformError && error.kind === 'rate_limited', String(error));
    assert.equal(error.reads, 100);
    assert.equal(fake.requests.length, 1, 'the refused request was never sent');
    assert.equal(pacer.asked, 2);
    assert.equal(pacer.told.length, 1);
    assert.ok(pacer.told[0], 'the answer carried its window');
  });
});

describe('every request of an X call passes the pacer', () => {
  it('X 400 splitting: one ask per request sent', async (t) => {
    const { fake, client } = await xSetup(t);
    for (let i = 1; i <= 4; i++) fake.addUser({ username: `n${i}` });
    // A 400 that names no value: the batch is halved until the bad name is alone.
    fake.faults.inject(
      {
        kind: 'status',
        status: 400,
        body: JSON.stringify({
          title: 'Invalid Request',
          detail: 'One or more parameters to your request was invalid.',
        }),
      },
      3,
      '/2/users/by',
    );
    const pacer = countingPacer();
    await client.lookupByUsernames(['n1', 'n2', 'n3', 'n4'], { pacer });
    assert.equal(pacer.asked, fake.requests.length);
    assert.equal(pacer.told.length, fake.requests.length);
    assert.ok(fake.requests.length > 1);
  });

  it('timeline pages: one ask per page; a refused page fails the call with the reads so far', async (t) => {
    const { fake, client } = await xSetup(t);
    const jack = fake.addUser({ username: 'jack' });
    for (let i = 0; i < 150; i++) fake.addPost(jack.id, { text: `post ${i}` });
    const pacer = countingPacer();
    const result = await client.fetchPosts(jack.id, null, 150, { pacer });
    assert.equal(result.value.length, 150);
    assert.equal(fake.requests.length, 2, 'pages of 100 and 50');
    assert.equal(pacer.asked, 2);
    const refused = await client.fetchPosts(jack.id, null, 150, { pacer: countingPacer(1) }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(refused instanceof PlatformError && refused.kind === 'rate_limited', String(refused));
    assert.equal(refused.reads, 100);
    assert.equal(fake.requests.length, 3, 'the second page was never sent');
  });
});

describe('Bluesky post lookups (app.bsky.feed.getPosts)', () => {
  it('reads current metrics; a post the AppView leaves out is deleted, one with a hiding label hidden', async (t) => {
    const { fake, client } = await bskySetup(t);
    const alice = fake.addUser({ handle: 'alice.bsky.social' });
    const banned = fake.addUser({ handle: 'banned.bsky.social' });
    const kept = fake.addPost(alice.did, { text: 'still here', likes: 40 });
    const gone = fake.addPost(alice.did, { text: 'regretted' });
    const ofBanned = fake.addPost(banned.did, { text: 'under a taken-down account' });
    fake.updatePost(kept.uri, { likes: 540, replies: 3 });
    fake.deletePost(gone.uri);
    fake.takedown(banned.did);

    const result = await client.lookupPosts([kept.uri, gone.uri, ofBanned.uri, 'https://bsky.app/not-a-uri']);
    assert.equal(likesOf(result.value.get(kept.uri)), 540);
    assert.equal(
      (result.value.get(kept.uri) as { post: { url: string } }).post.url,
      `https://bsky.app/profile/alice.bsky.social/post/${kept.rkey}`,
    );
    assert.equal(result.value.get(gone.uri)?.kind, 'deleted');
    assert.equal(result.value.get(ofBanned.uri)?.kind, 'deleted');
    assert.equal(result.value.get('https://bsky.app/not-a-uri')?.kind, 'unknown');
    assert.equal(result.reads, 1);
    const [request] = fake.requests;
    assert.equal(request?.path, '/xrpc/app.bsky.feed.getPosts');
    assert.deepEqual(request?.query.getAll('uris'), [kept.uri, gone.uri, ofBanned.uri]);
  });

  it('asks in batches of at most 25 uris, each past the pacer', async (t) => {
    const { fake, client } = await bskySetup(t);
    const alice = fake.addUser({ handle: 'alice.bsky.social' });
    const uris = Array.from({ length: 60 }, (_, i) => fake.addPost(alice.did, { text: `post ${i}`, likes: i }).uri);
    const pacer = countingPacer();
    const result = await client.lookupPosts(uris, { pacer });
    assert.deepEqual(
      fake.requestsTo('getPosts').map((r) => r.query.getAll('uris').length),
      [25, 25, 10],
    );
    assert.equal(pacer.asked, 3);
    assert.equal(likesOf(result.value.get(uris[59]!)), 59);
    assert.equal(result.reads, 60);
  });
});

describe('every request of a Bluesky call passes the pacer', () => {
  it('per-actor getProfile fallbacks and feed pages each ask; a refusal keeps what was learnt', async (t) => {
    const { fake, client } = await bskySetup(t);
    fake.addUser({ handle: 'alice.bsky.social' });
    const gone = fake.addUser({ handle: 'gone.bsky.social' });
    const off = fake.addUser({ handle: 'off.bsky.social' });
    fake.takedown(gone.did);
    fake.deactivate(off.did);
    const pacer = countingPacer();
    const all = await client.lookupByUsernames(['alice.bsky.social', 'gone.bsky.social', 'off.bsky.social'], { pacer });
    assert.equal(fake.requests.length, 3, 'getProfiles, then getProfile for each left out');
    assert.equal(pacer.asked, 3);
    assert.equal(all.value.get('gone.bsky.social')?.kind, 'suspended');

    const stingy = countingPacer(2);
    const partial = await client.lookupByUsernames(['alice.bsky.social', 'gone.bsky.social', 'off.bsky.social'], {
      pacer: stingy,
    });
    assert.equal(partial.value.get('alice.bsky.social')?.kind, 'found');
    assert.equal(partial.value.get('gone.bsky.social')?.kind, 'suspended');
    assert.equal(partial.value.get('off.bsky.social')?.kind, 'unknown', 'no room for its fallback: asked again later');

    const poster = fake.addUser({ handle: 'poster.bsky.social' });
    for (let i = 0; i < 150; i++) fake.addPost(poster.did, { text: `post ${i}` });
    const feedPacer = countingPacer();
    fake.requests.length = 0;
    await client.fetchPosts(poster.did, null, 150, { pacer: feedPacer });
    assert.equal(feedPacer.asked, fake.requestsTo('getAuthorFeed').length);
    assert.equal(feedPacer.asked, 2);
  });
});

describe('links from the platforms are kept only when they are http(s)', () => {
  it('X profile url and avatar', async (t) => {
    const { fake, client } = await xSetup(t);
    fake.addUser({ username: 'evil', url: 'javascript:alert(1)', profileImageUrl: 'data:image/png;base64,AAAA' });
    fake.addUser({ username: 'fine', url: 'https://example.com/me' });
    const result = await client.lookupByUsernames(['evil', 'fine']);
    const profile = (name: string) =>
      (result.value.get(name) as { user: { profile: { url: string | null; profileImageUrl: string | null } } }).user
        .profile;
    assert.equal(profile('evil').url, null);
    assert.equal(profile('evil').profileImageUrl, null);
    assert.equal(profile('fine').url, 'https://example.com/me');
  });

  it('Bluesky website and avatar', async (t) => {
    const { fake, client } = await bskySetup(t);
    fake.addUser({ handle: 'evil.bsky.social', website: 'javascript:alert(1)', avatar: 'file:///etc/passwd' });
    fake.addUser({
      handle: 'fine.bsky.social',
      website: 'http://example.org',
      avatar: 'https://cdn.bsky.app/img/a.jpg',
    });
    const result = await client.lookupByUsernames(['evil.bsky.social', 'fine.bsky.social']);
    const profile = (name: string) =>
      (result.value.get(name) as { user: { profile: { url: string | null; profileImageUrl: string | null } } }).user
        .profile;
    assert.deepEqual([profile('evil.bsky.social').url, profile('evil.bsky.social').profileImageUrl], [null, null]);
    assert.deepEqual(
      [profile('fine.bsky.social').url, profile('fine.bsky.social').profileImageUrl],
      ['http://example.org', 'https://cdn.bsky.app/img/a.jpg'],
    );
  });
});
