// The X client against the local fake X over real HTTP: lookups, per-item errors, malformed names and records,
// timelines, rate limits and transport faults.
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { createXClient, type XClientOptions } from '../../src/platforms/x.ts';
import { PlatformError, type LookupOutcome, type PlatformUser } from '../../src/platforms/types.ts';
import { startFakeX, type FakeXOptions } from '../../src/simulators/x-server.ts';

const START = Date.parse('2025-03-01T12:00:00.000Z');
/** X's answer to a batch it refuses without naming the value at fault. */
const VAGUE_400 = JSON.stringify({
  title: 'Invalid Request',
  detail: 'One or more parameters to your request was invalid.',
  type: 'https://api.twitter.com/2/problems/invalid-request',
});

async function setup(t: TestContext, fakeOptions: FakeXOptions = {}, clientOptions: Partial<XClientOptions> = {}) {
  let now = START;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const fake = await startFakeX({ clock, ...fakeOptions });
  t.after(() => fake.close());
  const client = createXClient({ baseUrl: fake.url, bearerToken: 'test-x-token', now: clock.now, ...clientOptions });
  return { fake, client, clock };
}

function found(outcome: LookupOutcome | undefined): PlatformUser {
  assert.equal(outcome?.kind, 'found', `expected found, got ${JSON.stringify(outcome)}`);
  return (outcome as { user: PlatformUser }).user;
}

async function rejectsWith(promise: Promise<unknown>, kind: PlatformError['kind']): Promise<PlatformError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PlatformError, `expected a PlatformError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    return error;
  }
  assert.fail(`expected a ${kind} PlatformError`);
}

describe('X lookups', () => {
  test('a found user has every field mapped, keyed by the lower-cased name', async (t) => {
    const { fake, client } = await setup(t);
    const jack = fake.addUser({
      id: '12',
      username: 'Jack',
      name: 'jack',
      description: 'just setting up',
      location: 'California',
      url: 'https://t.co/abc',
      verified: true,
      createdAt: '2006-03-21T20:50:14.000Z',
      followers: 6_000_000,
      following: 4_000,
      posts: 29_000,
      listed: 32_000,
    });
    const result = await client.lookupByUsernames(['JACK']);
    assert.deepEqual(found(result.value.get('jack')), {
      platformUserId: jack.id,
      username: 'Jack',
      profile: {
        displayName: 'jack',
        description: 'just setting up',
        location: 'California',
        url: 'https://t.co/abc',
        profileImageUrl: jack.profileImageUrl,
        verified: true,
        protected: false,
        createdAt: '2006-03-21T20:50:14.000Z',
      },
      followers: 6_000_000,
      following: 4_000,
      posts: 29_000,
      listed: 32_000,
    });
    assert.equal(result.reads, 1);
    const request = fake.requests[0]!;
    assert.equal(request.path, '/2/users/by');
    assert.equal(request.headers.authorization, 'Bearer test-x-token');
    assert.deepEqual(request.query.get('user.fields')?.split(',').sort(), [
      'created_at',
      'description',
      'location',
      'profile_image_url',
      'protected',
      'public_metrics',
      'url',
      'verified',
    ]);
    assert.equal(fake.lookupsOf(jack.id), 1);
  });

  test('the post count is read from tweet_count or, when X sends it, post_count', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUser({ username: 'poster', posts: 42 });
    assert.equal(found((await client.lookupByUsernames(['poster'])).value.get('poster')).posts, 42);
    fake.usePostCountField = 'post_count';
    assert.equal(found((await client.lookupByUsernames(['poster'])).value.get('poster')).posts, 42);
  });

  test('a protected account is found, with profile.protected set', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUser({ username: 'private_one', protected: true });
    assert.equal(
      found((await client.lookupByUsernames(['private_one'])).value.get('private_one')).profile.protected,
      true,
    );
  });

  test('a batch mixes found, not found (unknown, deleted, renamed away) and suspended', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUser({ username: 'alive' });
    const banned = fake.addUser({ username: 'banned' });
    const gone = fake.addUser({ username: 'gone' });
    const mover = fake.addUser({ username: 'old_name' });
    fake.suspend(banned.id);
    fake.remove(gone.id);
    fake.rename(mover.id, 'new_name');
    const result = await client.lookupByUsernames([
      'alive',
      'Banned',
      'gone',
      'old_name',
      'new_name',
      'nobody',
      'ALIVE',
    ]);
    const kinds = Object.fromEntries([...result.value].map(([name, outcome]) => [name, outcome.kind]));
    assert.deepEqual(kinds, {
      alive: 'found',
      banned: 'suspended',
      gone: 'not_found',
      old_name: 'not_found',
      new_name: 'found',
      nobody: 'not_found',
    });
    assert.deepEqual(result.value.get('banned'), { kind: 'suspended', reason: 'User has been suspended: [Banned].' });
    assert.deepEqual(result.value.get('nobody'), {
      kind: 'not_found',
      reason: 'Could not find user with usernames: [nobody].',
    });
    assert.equal(found(result.value.get('new_name')).platformUserId, mover.id);
    assert.equal(result.reads, 2);
    assert.equal(fake.requests.length, 1);
  });

  test('a malformed name is marked invalid and the rest of its batch is still answered', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUser({ username: 'alice' });
    fake.addUser({ username: 'bob' });
    const result = await client.lookupByUsernames(['alice', 'bad.name', 'bob', '@carol', 'a,b']);
    assert.equal(found(result.value.get('alice')).username, 'alice');
    assert.equal(found(result.value.get('bob')).username, 'bob');
    for (const bad of ['bad.name', '@carol', 'a,b']) assert.equal(result.value.get(bad)?.kind, 'invalid', bad);
    assert.match((result.value.get('bad.name') as { reason: string }).reason, /does not match/);
    // One refused request naming both bad values, then one for the rest; the comma never left the client.
    assert.deepEqual(
      fake.requests.map((r) => r.status),
      [400, 200],
    );
    assert.equal(result.reads, 2);
  });

  test('a 400 that names no value splits the batch until the bad name is alone', async (t) => {
    const { fake, client } = await setup(t);
    for (const name of ['n1', 'n2', 'n3', 'n4']) fake.addUser({ username: name });
    fake.faults.inject({ kind: 'status', status: 400, body: VAGUE_400 }, 1, '/2/users/by');
    const result = await client.lookupByUsernames(['n1', 'n2', 'n3', 'n4']);
    assert.deepEqual(
      [...result.value.values()].map((o) => o.kind),
      ['found', 'found', 'found', 'found'],
    );
    assert.deepEqual(
      fake.requests.map((r) => r.query.get('usernames')),
      ['n1,n2,n3,n4', 'n1,n2', 'n3,n4'],
    );

    fake.resetStats();
    fake.faults.inject({ kind: 'status', status: 400, body: VAGUE_400 }, 1, '/2/users/by');
    assert.equal((await client.lookupByUsernames(['n1'])).value.get('n1')?.kind, 'invalid');
  });

  test('more names than one request takes are sent in batches of 100', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUsers(150, 'bulk');
    const names = Array.from({ length: 150 }, (_, i) => `bulk${i}`);
    const result = await client.lookupByUsernames(names);
    assert.equal([...result.value.values()].filter((o) => o.kind === 'found').length, 150);
    assert.deepEqual(
      fake.requests.map((r) => r.query.get('usernames')?.split(',').length),
      [100, 50],
    );
    assert.equal(result.reads, 150);
  });

  test('a user with negative public_metrics is unknown; the rest of its batch of 100 is found', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUsers(99, 'fine');
    fake.addUser({ username: 'negative', followers: -1 });
    const result = await client.lookupByUsernames([...Array.from({ length: 99 }, (_, i) => `fine${i}`), 'negative']);
    assert.equal([...result.value.values()].filter((o) => o.kind === 'found').length, 99);
    const outcome = result.value.get('negative');
    assert.equal(outcome?.kind, 'unknown');
    assert.match(
      (outcome as { reason: string }).reason,
      /^the platform sent an unusable record: user \d+ has missing or invalid public_metrics$/,
    );
    // X billed the malformed user too.
    assert.equal(result.reads, 100);
    assert.equal(fake.requests.length, 1);
  });

  test('malformed users are unknown by their own key; one without id or username leaves its key to the absent rule', async (t) => {
    const { fake, client } = await setup(t);
    const metrics = { followers_count: 1, following_count: 2, tweet_count: 3, listed_count: 4 };
    const body = {
      data: [
        { id: '1', name: 'One', username: 'one', public_metrics: metrics },
        { id: '2', name: 'Two', username: 'two' },
        { id: '3', name: 'Three', username: 'three', public_metrics: { ...metrics, following_count: 2.5 } },
        { id: '5', name: 'Five', username: 'five', public_metrics: { ...metrics, followers_count: 2 ** 60 } },
        { name: 'nameless', public_metrics: metrics },
        42,
      ],
    };
    fake.faults.inject({ kind: 'status', status: 200, body: JSON.stringify(body) }, 1, '/2/users');
    const result = await client.lookupByIds(['1', '2', '3', '4', '5']);
    assert.equal(found(result.value.get('1')).followers, 1);
    assert.deepEqual(result.value.get('2'), {
      kind: 'unknown',
      reason: 'the platform sent an unusable record: user 2 has no public_metrics',
    });
    assert.deepEqual(result.value.get('3'), {
      kind: 'unknown',
      reason: 'the platform sent an unusable record: user 3 has missing or invalid public_metrics',
    });
    assert.deepEqual(result.value.get('4'), {
      kind: 'unknown',
      reason: 'X answered neither a user nor an error for it',
    });
    assert.equal(result.value.get('5')?.kind, 'unknown');
    assert.equal(result.reads, 6);
  });

  test('NUL characters are stripped from every string X sends', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUser({
      username: 'nul',
      name: 'N\u0000ul',
      description: 'just\u0000 setting up\u0000',
      location: '\u0000',
      url: 'https://t.co/a\u0000b',
    });
    const user = found((await client.lookupByUsernames(['nul'])).value.get('nul'));
    assert.deepEqual(
      [user.profile.displayName, user.profile.description, user.profile.location, user.profile.url],
      ['Nul', 'just setting up', null, 'https://t.co/ab'],
    );

    const body = {
      data: [
        {
          id: '77\u0000',
          text: 'hi\u0000 there',
          created_at: '2025-02-27T10:00:00.000Z',
          lang: 'e\u0000n',
          entities: { hashtags: [{ tag: 'pe\u0000rch' }] },
        },
      ],
      meta: { result_count: 1 },
    };
    fake.faults.inject({ kind: 'status', status: 200, body: JSON.stringify(body) }, 1, '/2/users/');
    const [post] = (await client.fetchPosts(user.platformUserId, null, 10)).value;
    assert.deepEqual(
      [post?.id, post?.text, post?.lang, post?.hashtags, post?.url],
      ['77', 'hi there', 'en', ['perch'], 'https://x.com/i/web/status/77'],
    );
  });

  test('lookups by id are keyed by id, with the same outcomes', async (t) => {
    const { fake, client } = await setup(t);
    const a = fake.addUser({ username: 'by_id', followers: 7 });
    const b = fake.addUser({ username: 'suspended_id' });
    const c = fake.addUser({ username: 'deleted_id' });
    fake.suspend(b.id);
    fake.remove(c.id);
    const result = await client.lookupByIds([a.id, b.id, c.id, '999', 'abc']);
    assert.equal(found(result.value.get(a.id)).followers, 7);
    assert.equal(result.value.get(b.id)?.kind, 'suspended');
    assert.deepEqual(result.value.get(c.id), { kind: 'not_found', reason: `Could not find user with ids: [${c.id}].` });
    assert.equal(result.value.get('999')?.kind, 'not_found');
    assert.equal(result.value.get('abc')?.kind, 'invalid');
    assert.equal(fake.requests[0]!.path, '/2/users');
  });
});

describe('X timelines', () => {
  test('posts come newest first with flags, metrics and entities mapped', async (t) => {
    const { fake, client } = await setup(t);
    const user = fake.addUser({ username: 'writer', posts: 10 });
    const own = fake.addPost(user.id, {
      text: 'Shipping #perch today with @alice',
      createdAt: '2025-02-27T10:00:00.000Z',
      likes: 5,
      reposts: 2,
      replies: 1,
      quotes: 3,
      hashtags: ['perch', 'TypeScript'],
      mentions: ['alice'],
      urls: ['https://www.Example.COM/post', 'https://blog.example.org/x'],
      lang: 'en',
    });
    const repost = fake.addPost(user.id, {
      text: 'RT @bob: hello',
      isRepost: true,
      createdAt: '2025-02-28T10:00:00.000Z',
    });
    const reply = fake.addPost(user.id, {
      text: '@bob indeed',
      isReply: true,
      lang: 'und',
      createdAt: '2025-02-28T11:00:00.000Z',
    });
    assert.equal(fake.user(user.id).posts, 13);

    const result = await client.fetchPosts(user.id, null, 50);
    assert.deepEqual(
      result.value.map((p) => p.id),
      [reply.id, repost.id, own.id],
    );
    assert.equal(result.reads, 3);
    const [r, rt, o] = result.value;
    assert.deepEqual([r!.isReply, r!.isRepost, r!.lang], [true, false, null]);
    assert.deepEqual([rt!.isReply, rt!.isRepost], [false, true]);
    assert.deepEqual(o, {
      id: own.id,
      createdAt: '2025-02-27T10:00:00.000Z',
      text: own.text,
      lang: 'en',
      isRepost: false,
      isReply: false,
      url: `https://x.com/i/web/status/${own.id}`,
      likes: 5,
      reposts: 2,
      replies: 1,
      quotes: 3,
      hashtags: ['perch', 'TypeScript'],
      mentions: ['alice'],
      domains: ['example.com', 'blog.example.org'],
    });
    const query = fake.requests[0]!.query;
    assert.equal(query.get('max_results'), '50');
    assert.equal(query.get('since_id'), null);
  });

  test('since_id and pagination: only newer posts, pages followed until the limit', async (t) => {
    const { fake, client } = await setup(t);
    const user = fake.addUser({ username: 'prolific' });
    const posts = Array.from({ length: 130 }, (_, i) =>
      fake.addPost(user.id, { text: `post ${i}`, createdAt: new Date(START - (130 - i) * 60_000).toISOString() }),
    );
    const sinceId = posts[9]!.id;

    const all = await client.fetchPosts(user.id, sinceId, 1_000);
    assert.equal(all.value.length, 120);
    assert.equal(all.value[0]!.id, posts[129]!.id);
    assert.equal(all.value.at(-1)!.id, posts[10]!.id);
    assert.equal(all.reads, 120);
    assert.deepEqual(
      fake.requests.map((r) => [r.query.get('max_results'), r.query.get('since_id'), r.query.has('pagination_token')]),
      [
        ['100', sinceId, false],
        ['100', sinceId, true],
      ],
    );

    fake.resetStats();
    const few = await client.fetchPosts(user.id, null, 3);
    assert.deepEqual(
      few.value.map((p) => p.id),
      [posts[129]!.id, posts[128]!.id, posts[127]!.id],
    );
    // X pages hold at least 5 posts; the client asks for 5 and keeps 3, but X bills all 5.
    assert.equal(fake.requests[0]!.query.get('max_results'), '5');
    assert.equal(few.reads, 5);
  });

  test('a malformed post is skipped and the rest of its page kept, all of them billed', async (t) => {
    const { fake, client } = await setup(t);
    const user = fake.addUser({ username: 'mixed' });
    const post = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      text: `post ${id}`,
      created_at: '2025-02-27T10:00:00.000Z',
      ...extra,
    });
    const body = {
      data: [
        post('104'),
        post('103', { created_at: 'yesterday' }),
        post('102', { text: null }),
        'junk',
        post('101', { id: '' }),
        post('100'),
      ],
      meta: { result_count: 6, newest_id: '104', oldest_id: '100' },
    };
    fake.faults.inject({ kind: 'status', status: 200, body: JSON.stringify(body) }, 1, '/2/users/');
    const result = await client.fetchPosts(user.id, null, 20);
    assert.deepEqual(
      result.value.map((p) => p.id),
      ['104', '100'],
    );
    assert.equal(result.reads, 6);
    assert.equal(fake.requests.length, 1);
  });

  test('an empty timeline (no data, result_count 0) is an empty list', async (t) => {
    const { fake, client } = await setup(t);
    const user = fake.addUser({ username: 'quiet' });
    const result = await client.fetchPosts(user.id, null, 20);
    assert.deepEqual({ value: result.value, reads: result.reads }, { value: [], reads: 0 });
    assert.equal(result.rateLimit?.limit, 10_000_000, 'X announces the window on every response');
  });

  test('the timeline of a suspended user is refused as invalid_request', async (t) => {
    const { fake, client } = await setup(t);
    const user = fake.addUser({ username: 'silenced' });
    fake.suspend(user.id);
    const error = await rejectsWith(client.fetchPosts(user.id, null, 20), 'invalid_request');
    assert.match(error.message, /suspended/);
  });
});

describe('X rate limits and failures', () => {
  test('rate-limit headers are read on success, and a 429 retries at the reset', async (t) => {
    const { fake, client } = await setup(t);
    fake.addUser({ username: 'someone' });
    fake.setRateLimit('users_by', 2, 15 * 60_000);
    const resetAt = Math.ceil((START + 15 * 60_000) / 1000) * 1000;
    const first = await client.lookupByUsernames(['someone']);
    assert.deepEqual(first.rateLimit, { limit: 2, remaining: 1, resetAt });
    await client.lookupByUsernames(['someone']);
    const error = await rejectsWith(client.lookupByUsernames(['someone']), 'rate_limited');
    assert.equal(error.retryAt, resetAt);
    assert.deepEqual(error.rateLimit, { limit: 2, remaining: 0, resetAt });
    assert.equal(error.status, 429);
    assert.equal(fake.tooManyRequests, 1);
  });

  test('a failure after earlier requests of the same call still reports their reads, and a lookup keeps what they learnt', async (t) => {
    const { fake, client } = await setup(t);
    for (const name of ['n1', 'n2', 'n3', 'n4']) fake.addUser({ username: name });
    fake.faults.inject({ kind: 'status', status: 400, body: VAGUE_400 }, 1, '/2/users/by');
    // The 400 takes no slot of the window; the first half does, so the second half gets a 429.
    // What the earlier requests learnt is kept; the rest is unknown (asked again at its next check).
    fake.setRateLimit('users_by', 1);
    const lookup = await client.lookupByUsernames(['n1', 'n2', 'n3', 'n4']);
    assert.equal(lookup.reads, 2);
    assert.deepEqual(
      ['n1', 'n2', 'n3', 'n4'].map((n) => lookup.value.get(n)?.kind),
      ['found', 'found', 'unknown', 'unknown'],
    );
    assert.match((lookup.value.get('n3') as { reason: string }).reason, /rate limit/);
    assert.deepEqual(
      fake.requests.map((r) => r.status),
      [400, 200, 429],
    );

    const user = fake.addUser({ username: 'prolific' });
    for (let i = 0; i < 130; i++)
      fake.addPost(user.id, { text: `post ${i}`, createdAt: new Date(START - (130 - i) * 60_000).toISOString() });
    fake.setRateLimit('tweets', 1);
    const timeline = await rejectsWith(client.fetchPosts(user.id, null, 1_000), 'rate_limited');
    assert.equal(timeline.reads, 100);
    assert.ok(timeline.retryAt !== null && timeline.rateLimit !== null);

    // A call that fails on its first request has read nothing.
    assert.equal((await rejectsWith(client.fetchPosts(user.id, null, 10), 'rate_limited')).reads, undefined);
  });

  test('a 429 with only Retry-After retries after that delay', async (t) => {
    const { fake, client, clock } = await setup(t, { rateLimitHeaders: 'retry-after' });
    const user = fake.addUser({ username: 'someone' });
    fake.setRateLimit('tweets', 1, 60_000);
    assert.equal((await client.fetchPosts(user.id, null, 10)).rateLimit, null);
    clock.advance(20_000);
    const error = await rejectsWith(client.fetchPosts(user.id, null, 10), 'rate_limited');
    assert.equal(error.retryAt, START + 60_000);
    assert.equal(error.rateLimit, null);
  });

  test('503 and an unreadable 502 are unavailable; a reset connection too', async (t) => {
    const { fake, client } = await setup(t);
    fake.faults.inject({ kind: 'status', status: 503 }, 1, '/2/users');
    await rejectsWith(client.lookupByUsernames(['x']), 'unavailable');
    fake.faults.inject({ kind: 'status', status: 502, body: '<html>bad gateway</html>' }, 1, '/2/users');
    await rejectsWith(client.lookupByIds(['1']), 'unavailable');
    fake.faults.inject({ kind: 'reset' }, 1, '/2/users');
    await rejectsWith(client.lookupByUsernames(['x']), 'unavailable');
  });

  test('a hanging request is unavailable once the timeout passes', async (t) => {
    const { fake, client } = await setup(t, {}, { timeoutMs: 200 });
    fake.faults.inject({ kind: 'hang' }, 1, '/2/users/by');
    const started = Date.now();
    await rejectsWith(client.lookupByUsernames(['x']), 'unavailable');
    assert.ok(Date.now() - started < 2_000);
  });

  test('invalid JSON and an oversized body on 200 are bad responses', async (t) => {
    const { fake, client } = await setup(t, {}, { maxBytes: 1_000 });
    fake.faults.inject({ kind: 'invalid_json' }, 1, '/2/users/by');
    await rejectsWith(client.lookupByUsernames(['x']), 'bad_response');
    fake.faults.inject({ kind: 'oversized', bytes: 5_000 }, 1, '/2/users/by');
    await rejectsWith(client.lookupByUsernames(['x']), 'bad_response');
    fake.faults.inject({ kind: 'status', status: 200, body: '{"data":{"id":"1"}}' }, 1, '/2/users/by');
    await rejectsWith(client.lookupByUsernames(['x']), 'bad_response');
  });

  test('a wrong bearer token is unauthorized', async (t) => {
    const { fake } = await setup(t);
    const client = createXClient({ baseUrl: fake.url, bearerToken: 'wrong' });
    await rejectsWith(client.lookupByUsernames(['x']), 'unauthorized');
    assert.equal(fake.requests[0]!.status, 401);
  });

  test('without a token the client is not configured and sends nothing', async (t) => {
    const { fake } = await setup(t);
    const client = createXClient({ baseUrl: fake.url, bearerToken: null });
    assert.equal(client.configured, false);
    assert.equal(client.batchSize, 100);
    await rejectsWith(client.lookupByUsernames(['x']), 'unauthorized');
    await rejectsWith(client.fetchPosts('1', null, 5), 'unauthorized');
    assert.equal(fake.requests.length, 0);
  });
});

describe('the fake X itself', () => {
  test('returns only the requested fields and validates parameters as X does', async (t) => {
    const { fake } = await setup(t);
    fake.addUser({ username: 'plain', followers: 3 });
    const get = (path: string) => fetch(fake.url + path, { headers: { authorization: 'Bearer test-x-token' } });
    assert.deepEqual(
      Object.keys(((await (await get('/2/users/by?usernames=plain')).json()) as { data: object[] }).data[0]!),
      ['id', 'name', 'username'],
    );
    const bad = await get('/2/users/by?usernames=plain,no.dots');
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as {
      type: string;
      errors: { parameters: Record<string, string[]>; message: string }[];
    };
    assert.equal(body.type, 'https://api.twitter.com/2/problems/invalid-request');
    assert.deepEqual(body.errors, [
      {
        parameters: { usernames: ['plain,no.dots'] },
        message: 'The `usernames` query parameter value [no.dots] does not match ^[A-Za-z0-9_]{1,15}$',
      },
    ]);
    assert.equal((await get('/2/users/1/tweets?max_results=3')).status, 400);
    assert.equal(
      (await get(`/2/users/by?usernames=${Array.from({ length: 101 }, (_, i) => `u${i}`).join(',')}`)).status,
      400,
    );
    assert.equal((await get('/2/users/by?usernames=plain&bogus=1')).status, 400);
  });
});
