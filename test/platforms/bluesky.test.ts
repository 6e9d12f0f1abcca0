// The Bluesky client against the local fake AppView over real HTTP: profile mapping, the silent
// omissions of getProfiles explained by getProfile, author feeds with facets and cursors, rate
// limits and every way a request can fail.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { createBlueskyClient } from '../../src/platforms/bluesky.ts';
import { PlatformError, type LookupOutcome, type PlatformUser } from '../../src/platforms/types.ts';
import { startFakeBluesky, type FakeBlueskyOptions } from '../../src/simulators/bluesky-server.ts';

const START = Date.parse('2025-06-01T12:00:00.000Z');

async function setup(
  t: TestContext,
  options: { fake?: FakeBlueskyOptions; timeoutMs?: number; maxBytes?: number } = {},
) {
  const clock = { at: START, now: () => clock.at };
  const fake = await startFakeBluesky({ clock, ...options.fake });
  t.after(() => fake.close());
  const client = createBlueskyClient({
    baseUrl: fake.url,
    now: clock.now,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
  });
  return { fake, client, clock };
}

function user(outcome: LookupOutcome | undefined): PlatformUser {
  assert.equal(outcome?.kind, 'found', JSON.stringify(outcome));
  return (outcome as { user: PlatformUser }).user;
}

async function rejects(promise: Promise<unknown>, kind: PlatformError['kind']): Promise<PlatformError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PlatformError, String(error));
    assert.equal(error.kind, kind, error.message);
    return error;
  }
  assert.fail(`expected a ${kind} PlatformError`);
}

describe('bluesky lookups', () => {
  it('maps profileViewDetailed and keys by the lower-cased handle, in one getProfiles request', async (t) => {
    const { fake, client } = await setup(t);
    const alice = fake.addUser({
      handle: 'alice.bsky.social',
      displayName: 'Alice',
      description: 'hi',
      avatar: 'https://cdn.example/a.jpg',
      website: 'https://alice.example',
      followers: 120,
      follows: 7,
      posts: 3,
      createdAt: '2023-04-05T06:07:08+02:00',
      verified: true,
    });
    fake.addUser({ handle: 'bob.example.com' });
    assert.match(alice.did, /^did:plc:[a-z2-7]{24}$/);

    const result = await client.lookupByUsernames(['Alice.Bsky.Social', 'bob.example.com']);
    assert.deepEqual(user(result.value.get('alice.bsky.social')), {
      platformUserId: alice.did,
      username: 'alice.bsky.social',
      profile: {
        displayName: 'Alice',
        description: 'hi',
        location: null,
        url: 'https://alice.example',
        profileImageUrl: 'https://cdn.example/a.jpg',
        verified: true,
        protected: false,
        createdAt: '2023-04-05T04:07:08.000Z',
      },
      followers: 120,
      following: 7,
      posts: 3,
      listed: null,
    });
    const bob = user(result.value.get('bob.example.com'));
    assert.equal(bob.profile.verified, null); // no verification state at all
    assert.equal(bob.profile.displayName, null);
    assert.equal(result.reads, 2);
    const requests = fake.requestsTo('getProfiles');
    assert.equal(requests.length, 1);
    assert.deepEqual(requests[0]?.query.getAll('actors'), ['alice.bsky.social', 'bob.example.com']);
    assert.equal(fake.requests.length, 1, 'nothing missing, so no getProfile follow-up');
  });

  it('looks up by did, and a renamed account comes back under its new handle', async (t) => {
    const { fake, client } = await setup(t);
    const carol = fake.addUser({ handle: 'carol.bsky.social', followers: 5 });
    fake.rename(carol.did, 'carol.example.org');

    const byId = await client.lookupByIds([carol.did]);
    const found = user(byId.value.get(carol.did));
    assert.equal(found.username, 'carol.example.org');
    assert.equal(found.platformUserId, carol.did);

    const byOldName = await client.lookupByUsernames(['carol.bsky.social']);
    assert.deepEqual(byOldName.value.get('carol.bsky.social'), { kind: 'not_found', reason: 'Profile not found' });
  });

  it('explains silent omissions with getProfile: takedown, deactivated, deleted, unknown', async (t) => {
    const { fake, client } = await setup(t);
    const [down, gone, deleted, fine] = fake.addUsers(4, 'u');
    fake.takedown(down!.did);
    fake.deactivate(gone!.did);
    fake.remove(deleted!.did);

    const result = await client.lookupByIds([
      down!.did,
      gone!.did,
      deleted!.did,
      fine!.did,
      'did:plc:aaaaaaaaaaaaaaaaaaaaaaaa',
    ]);
    assert.deepEqual(result.value.get(down!.did), { kind: 'suspended', reason: 'Account has been suspended' });
    assert.deepEqual(result.value.get(gone!.did), { kind: 'not_found', reason: 'Account is deactivated' });
    assert.deepEqual(result.value.get(deleted!.did), { kind: 'not_found', reason: 'Profile not found' });
    assert.deepEqual(result.value.get('did:plc:aaaaaaaaaaaaaaaaaaaaaaaa'), {
      kind: 'not_found',
      reason: 'Profile not found',
    });
    assert.equal(user(result.value.get(fine!.did)).username, 'u3.bsky.social');
    assert.equal(fake.requestsTo('getProfiles').length, 1);
    assert.equal(fake.requestsTo('getProfile').length, 4);
    assert.equal(fake.lookupCount(down!.did), 2);
    assert.equal(fake.lookupCount(fine!.did), 1);

    const byName = await client.lookupByUsernames(['u0.bsky.social', 'nobody.bsky.social']);
    assert.equal(byName.value.get('u0.bsky.social')?.kind, 'suspended');
    assert.equal(byName.value.get('nobody.bsky.social')?.kind, 'not_found');
  });

  it('treats a !takedown label as suspended without a follow-up', async (t) => {
    const { fake, client } = await setup(t);
    const dan = fake.addUser({ handle: 'dan.bsky.social' });
    fake.label(dan.did, '!takedown');
    const result = await client.lookupByUsernames(['dan.bsky.social']);
    assert.deepEqual(result.value.get('dan.bsky.social'), { kind: 'suspended', reason: 'labelled !takedown' });
    assert.equal(fake.requests.length, 1);
  });

  it('answers a batch of 25 with one bad account, chunks larger lists and never sends invalid names', async (t) => {
    const { fake, client } = await setup(t);
    const users = fake.addUsers(26, 'member');
    fake.takedown(users[7]!.did);
    const names = users.map((u) => u.handle);

    const batch = await client.lookupByUsernames(names.slice(0, 25));
    assert.equal(batch.value.size, 25);
    assert.equal(batch.value.get('member7.bsky.social')?.kind, 'suspended');
    assert.equal([...batch.value.values()].filter((o) => o.kind === 'found').length, 24);
    assert.equal(batch.reads, 24);

    fake.requests.length = 0;
    const all = await client.lookupByUsernames([...names, 'not a handle', 'x.invalid', 'did:nope']);
    assert.equal(all.value.size, 29);
    assert.equal(all.value.get('not a handle')?.kind, 'invalid');
    assert.equal(all.value.get('x.invalid')?.kind, 'invalid');
    assert.equal(all.value.get('did:nope')?.kind, 'invalid');
    assert.deepEqual(
      fake.requestsTo('getProfiles').map((r) => r.query.getAll('actors').length),
      [25, 1],
    );
  });

  it('falls back to one getProfile per actor when the AppView refuses the whole batch', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUsers(2, 'eve');
    fake.faults.inject(
      {
        kind: 'status',
        status: 400,
        body: JSON.stringify({ error: 'InvalidRequest', message: 'Params/actors/1 must be a valid did or a handle' }),
      },
      1,
      '/xrpc/app.bsky.actor.getProfiles',
    );
    const result = await client.lookupByUsernames(['eve0.bsky.social', 'eve1.bsky.social']);
    assert.equal(user(result.value.get('eve0.bsky.social')).username, 'eve0.bsky.social');
    assert.equal(user(result.value.get('eve1.bsky.social')).username, 'eve1.bsky.social');
    assert.equal(fake.requestsTo('getProfile').length, 2);
  });

  it('counts a profile shown by getProfile after getProfiles left it out as found (a race)', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUser({ handle: 'race.bsky.social', followers: 9 });
    fake.faults.inject({ kind: 'status', status: 200, body: '{"profiles":[]}' }, 1, '/xrpc/app.bsky.actor.getProfiles');
    const result = await client.lookupByUsernames(['race.bsky.social']);
    assert.equal(user(result.value.get('race.bsky.social')).followers, 9);
    assert.equal(result.reads, 1);
  });

  it('keeps what it learnt when a follow-up is rate limited, and sends nothing the budget forbids', async (t) => {
    const { fake, client, clock } = await setup(t);
    const [a, b, c] = fake.addUsers(3, 'f');
    fake.takedown(b!.did);
    fake.takedown(c!.did);
    fake.setRateLimit('getProfile', 1, 60_000);
    const result = await client.lookupByIds([a!.did, b!.did, c!.did]);
    assert.equal(result.value.get(a!.did)?.kind, 'found');
    assert.equal(result.value.get(b!.did)?.kind, 'suspended');
    assert.equal(result.value.get(c!.did)?.kind, 'unknown');
    assert.equal(fake.requestsTo('getProfile').length, 1, 'remaining 0 means the third is not asked');
    assert.equal(fake.tooManyRequests, 0);
    assert.deepEqual(result.rateLimit, { limit: 1, remaining: 0, resetAt: clock.at + 60_000 });
  });
});

describe('bluesky author feed', () => {
  it('maps posts with facets (UTF-8 byte offsets), reposts, replies, languages and urls', async (t) => {
    const { fake, client, clock } = await setup(t);
    const ana = fake.addUser({ handle: 'ana.bsky.social' });
    const bob = fake.addUser({ handle: 'bob.bsky.social' });
    const first = fake.addPost(ana.did, { text: 'first', createdAt: '2025-06-01T13:59:00+02:00' });
    clock.at += 1000;
    fake.addPost(ana.did, {
      text: 'Grüße 🎉 für @bob.bsky.social',
      mentions: ['bob.bsky.social'],
      tags: ['perch', 'Ünïcode'],
      links: ['https://WWW.Example.com/a?b=1'],
      likes: 4,
      reposts: 3,
      replies: 2,
      quotes: 1,
      langs: ['de', 'en'],
    });
    clock.at += 1000;
    fake.addPost(ana.did, { text: 'shared', isRepost: true, repostOf: bob.did, likes: 10 });
    clock.at += 1000;
    fake.addPost(ana.did, { text: 'a thread', replyTo: first.uri });

    const result = await client.fetchPosts(ana.did, null, 10);
    const [reply, repost, rich, oldest] = result.value;
    assert.equal(result.value.length, 4);
    assert.equal(result.reads, 4);
    assert.equal(reply?.isReply, true);
    assert.equal(reply?.isRepost, false);
    assert.equal(repost?.isRepost, true);
    assert.equal(repost?.text, 'shared');
    assert.match(repost?.id ?? '', new RegExp(`^at://${bob.did}/app\\.bsky\\.feed\\.post/`));
    assert.match(repost?.url ?? '', /^https:\/\/bsky\.app\/profile\/bob\.bsky\.social\/post\/[2-7a-z]{13}$/);
    assert.equal(rich?.text, 'Grüße 🎉 für @bob.bsky.social #perch #Ünïcode https://WWW.Example.com/a?b=1');
    assert.deepEqual(rich?.mentions, ['bob.bsky.social']);
    assert.deepEqual(rich?.hashtags, ['perch', 'Ünïcode']);
    assert.deepEqual(rich?.domains, ['example.com']);
    assert.equal(rich?.lang, 'de');
    assert.deepEqual([rich?.likes, rich?.reposts, rich?.replies, rich?.quotes], [4, 3, 2, 1]);
    assert.equal(rich?.url, `https://bsky.app/profile/ana.bsky.social/post/${rich?.id.split('/').pop()}`);
    assert.equal(oldest?.createdAt, '2025-06-01T11:59:00.000Z');
    assert.equal(oldest?.lang, null);
    assert.equal(oldest?.isReply, false);

    const request = fake.requestsTo('getAuthorFeed')[0];
    assert.equal(request?.query.get('actor'), ana.did);
    assert.equal(request?.query.get('filter'), 'posts_with_replies');
    assert.equal(request?.query.get('limit'), '10');
  });

  it('stops at sinceId and follows the cursor across pages without duplicates', async (t) => {
    const { fake, client, clock } = await setup(t);
    const kim = fake.addUser({ handle: 'kim.bsky.social' });
    const posts = [];
    for (let i = 0; i < 250; i += 1) {
      posts.push(fake.addPost(kim.did, { text: `post ${i}` }));
      clock.at += 1000;
    }
    const recent = await client.fetchPosts(kim.did, posts[246]!.uri, 100);
    assert.deepEqual(
      recent.value.map((p) => p.text),
      ['post 249', 'post 248', 'post 247'],
    );
    assert.equal(fake.requestsTo('getAuthorFeed').length, 1);

    fake.requests.length = 0;
    const many = await client.fetchPosts(kim.did, null, 230);
    assert.equal(many.value.length, 230);
    assert.equal(new Set(many.value.map((p) => p.id)).size, 230);
    assert.equal(many.value[0]?.text, 'post 249');
    assert.equal(many.value[229]?.text, 'post 20');
    assert.deepEqual(
      fake.requestsTo('getAuthorFeed').map((r) => [r.query.get('limit'), r.query.has('cursor')]),
      [
        ['100', false],
        ['100', true],
        ['30', true],
      ],
    );

    fake.requests.length = 0;
    const old = await client.fetchPosts(kim.did, posts[10]!.uri, 1000);
    assert.equal(old.value.length, 239);
    assert.equal(fake.requestsTo('getAuthorFeed').length, 3);
  });

  it('skips the pinned copy and items that are not posts', async (t) => {
    const { fake, client, clock } = await setup(t);
    const lea = fake.addUser({ handle: 'lea.bsky.social' });
    const pinned = fake.addPost(lea.did, { text: 'pinned' });
    clock.at += 1000;
    fake.addPost(lea.did, { text: 'newer' });
    fake.pin(lea.did, pinned.uri);
    // The fake speaks includePins like the AppView; its answer is replayed to the client.
    const real = (await (
      await fetch(`${fake.url}/xrpc/app.bsky.feed.getAuthorFeed?actor=${lea.did}&includePins=true`)
    ).json()) as { feed: unknown[] };
    assert.equal(real.feed.length, 2);
    assert.equal((real.feed[0] as { reason?: { $type: string } }).reason?.$type, 'app.bsky.feed.defs#reasonPin');
    // Then junk, and the pinned post again in its own place (as on a later page).
    real.feed.push(
      { post: { uri: 'at://x/app.bsky.feed.generator/y', record: { $type: 'app.bsky.feed.generator' } } },
      'junk',
      { post: null },
      { post: (real.feed[0] as { post: unknown }).post },
    );
    fake.faults.inject({ kind: 'status', status: 200, body: JSON.stringify({ feed: real.feed }) });
    // A pinned copy on top would also stop a sinceId walk early: it is never taken.
    const result = await client.fetchPosts(lea.did, pinned.uri, 10);
    assert.deepEqual(
      result.value.map((p) => p.text),
      ['newer'],
    );
    fake.faults.inject({ kind: 'status', status: 200, body: JSON.stringify({ feed: real.feed }) });
    const all = await client.fetchPosts(lea.did, null, 10);
    assert.deepEqual(
      all.value.map((p) => p.text),
      ['newer', 'pinned'],
    );
  });

  it('turns an unknown actor into invalid_request', async (t) => {
    const { client } = await setup(t);
    const error = await rejects(client.fetchPosts('did:plc:aaaaaaaaaaaaaaaaaaaaaaaa', null, 10), 'invalid_request');
    assert.match(error.message, /Profile not found/);
    assert.equal(error.status, 400);
  });
});

describe('bluesky rate limits and failures', () => {
  it('reports ratelimit-* on success and turns a 429 into rate_limited at the reset', async (t) => {
    const { fake, client, clock } = await setup(t);
    const zed = fake.addUser({ handle: 'zed.bsky.social' });
    fake.setRateLimit('getProfiles', 2, 300_000);
    const resetAt = Math.ceil((clock.at + 300_000) / 1000) * 1000;
    const first = await client.lookupByUsernames(['zed.bsky.social']);
    assert.deepEqual(first.rateLimit, { limit: 2, remaining: 1, resetAt });
    const second = await client.lookupByIds([zed.did]);
    assert.deepEqual(second.rateLimit, { limit: 2, remaining: 0, resetAt });
    const error = await rejects(client.lookupByUsernames(['zed.bsky.social']), 'rate_limited');
    assert.equal(error.retryAt, resetAt);
    assert.equal(error.status, 429);
    assert.deepEqual(error.rateLimit, { limit: 2, remaining: 0, resetAt });
    assert.equal(fake.tooManyRequests, 1);
    const sent = fake.requests.at(-1);
    assert.equal(sent?.status, 429);
  });

  it('falls back to Retry-After, then to a minute', async (t) => {
    const { fake, client, clock } = await setup(t, { fake: { rateLimitHeaders: 'retry-after' } });
    const zed = fake.addUser({ handle: 'zed.bsky.social' });
    fake.setRateLimit('getAuthorFeed', 0, 90_000);
    const error = await rejects(client.fetchPosts(zed.did, null, 5), 'rate_limited');
    assert.equal(error.retryAt, clock.at + 90_000);
    assert.equal(error.rateLimit, null);

    fake.faults.inject({
      kind: 'status',
      status: 429,
      body: '{"error":"RateLimitExceeded","message":"Rate Limit Exceeded"}',
    });
    const bare = await rejects(client.lookupByUsernames(['zed.bsky.social']), 'rate_limited');
    assert.equal(bare.retryAt, clock.at + 60_000);
  });

  it('maps 502, hangs, invalid JSON, wrong shapes and oversized bodies', async (t) => {
    const { fake, client } = await setup(t, { timeoutMs: 200, maxBytes: 10_000 });
    const ivy = fake.addUser({ handle: 'ivy.bsky.social' });
    fake.faults.inject({
      kind: 'status',
      status: 502,
      body: '{"error":"UpstreamFailure","message":"Upstream Failure"}',
    });
    const upstream = await rejects(client.lookupByUsernames(['ivy.bsky.social']), 'unavailable');
    assert.match(upstream.message, /UpstreamFailure/);

    fake.faults.inject({ kind: 'hang' });
    const started = Date.now();
    await rejects(client.fetchPosts(ivy.did, null, 5), 'unavailable');
    assert.ok(Date.now() - started < 2_000);

    fake.faults.inject({ kind: 'reset' });
    await rejects(client.lookupByIds([ivy.did]), 'unavailable');
    fake.faults.inject({ kind: 'invalid_json' });
    await rejects(client.lookupByIds([ivy.did]), 'bad_response');
    fake.faults.inject({ kind: 'status', status: 200, body: '{"profiles":"nope"}' });
    await rejects(client.lookupByIds([ivy.did]), 'bad_response');
    fake.faults.inject({ kind: 'status', status: 200, body: '{"feed":[],"cursor":7}' });
    await rejects(client.fetchPosts(ivy.did, null, 5), 'bad_response');
    fake.faults.inject({ kind: 'oversized', bytes: 20_000 });
    await rejects(client.fetchPosts(ivy.did, null, 5), 'bad_response');

    // After all that the next request is answered normally.
    assert.equal(user((await client.lookupByIds([ivy.did])).value.get(ivy.did)).username, 'ivy.bsky.social');
  });
});

describe('the fake AppView', () => {
  it('validates parameters like the real one', async (t) => {
    const { fake } = await setup(t);
    const get = async (query: string) => {
      const response = await fetch(`${fake.url}/xrpc/${query}`);
      return { status: response.status, body: (await response.json()) as { error?: string; message?: string } };
    };
    const many = Array.from({ length: 26 }, (_, i) => `actors=u${i}.bsky.social`).join('&');
    assert.deepEqual(await get(`app.bsky.actor.getProfiles?${many}`), {
      status: 400,
      body: { error: 'InvalidRequest', message: 'Params/actors must not have more than 25 elements' },
    });
    assert.equal((await get('app.bsky.actor.getProfiles')).status, 400);
    assert.equal((await get('app.bsky.feed.getAuthorFeed?actor=a.bsky.social&limit=0')).status, 400);
    assert.equal(
      (await get('app.bsky.feed.getAuthorFeed?actor=a.bsky.social&limit=101')).body.message,
      'Params/limit can not be greater than 100',
    );
    assert.deepEqual(await get('app.bsky.feed.getAuthorFeed?actor=a.bsky.social'), {
      status: 400,
      body: { error: 'InvalidRequest', message: 'Profile not found' },
    });
    assert.equal((await get('app.bsky.actor.getProfile?actor=bad%20handle')).status, 400);
    assert.equal((await get('app.bsky.unknown.method')).status, 501);
    assert.equal(fake.requests.length, 7);
    assert.equal(fake.requests[0]?.at, START);
  });

  it('keeps self-threads and drops replies to others under posts_and_author_threads', async (t) => {
    const { fake } = await setup(t);
    const mo = fake.addUser({ handle: 'mo.bsky.social' });
    const root = fake.addPost(mo.did, { text: 'root' });
    fake.addPost(mo.did, { text: 'self reply', replyTo: root.uri });
    fake.addPost(mo.did, { text: 'reply to someone', isReply: true });
    fake.addPost(mo.did, { text: 'boost', isRepost: true });
    const texts = async (filter: string) => {
      const body = (await (
        await fetch(`${fake.url}/xrpc/app.bsky.feed.getAuthorFeed?actor=mo.bsky.social&filter=${filter}`)
      ).json()) as { feed: { post: { record: { text: string } } }[] };
      return body.feed.map((item) => item.post.record.text);
    };
    assert.deepEqual(await texts('posts_with_replies'), ['boost', 'reply to someone', 'self reply', 'root']);
    assert.deepEqual(await texts('posts_and_author_threads'), ['boost', 'self reply', 'root']);
    assert.deepEqual(await texts('posts_no_replies'), ['boost', 'root']);
    assert.equal(fake.user(mo.did).posts, 3, 'a repost is not a post of the reposter');
  });
});
