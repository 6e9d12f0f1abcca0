// Post metrics that stay true, end to end: perch (API and tracker) on a real store against the local
// X and Bluesky servers over real HTTP. Posts gain likes or disappear on the platform after their
// first read; the next check shows it in /posts and in analysis.engagement, within the batch
// sizes, the rate limits and X's daily read budget, with a bounded history per post.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { startFakeBluesky, type FakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeX, type FakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const HOUR = 3_600_000;
const admin = { 'x-api-key': ADMIN_KEY };

interface World {
  api: TestApp;
  x: FakeX;
  bsky: FakeBluesky;
  tick(): Promise<void>;
  advance(ms: number): void;
  get(url: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
}

async function world(t: TestContext, env: Record<string, string> = {}): Promise<World> {
  let api: TestApp | null = null;
  // The simulators read the app's clock, so posts age as the test moves time.
  const clock = { now: () => api?.clock.now() ?? Date.parse('2026-11-23T12:00:00.000Z') };
  const x = await startFakeX({ clock });
  const bsky = await startFakeBluesky({ clock });
  t.after(async () => {
    await x.close();
    await bsky.close();
  });
  api = await build(t, {}, { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url, BLUESKY_API_BASE_URL: bsky.url, ...env });
  const app = api;
  return {
    api: app,
    x,
    bsky,
    tick: async () => {
      await app.tracker?.tick();
    },
    advance: (ms) => app.clock.advance(ms),
    get: async (url) => {
      const response = await app.app.inject({ method: 'GET', url, headers: admin });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    },
  };
}

interface Counts {
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
}

/** DESIGN.md §4, computed from the platform's own current numbers. */
function engagementOf(posts: readonly Counts[], followers: number) {
  const n = posts.length;
  const sum = (pick: (p: Counts) => number) => posts.reduce((total, p) => total + pick(p), 0);
  const r2 = (value: number) => Math.round(value * 100) / 100 + 0;
  return {
    avgLikes: r2(sum((p) => p.likes) / n),
    avgReposts: r2(sum((p) => p.reposts) / n),
    avgReplies: r2(sum((p) => p.replies) / n),
    engagementRate: r2((sum((p) => p.likes + p.reposts + p.replies + p.quotes) / n / followers) * 100),
    postsConsidered: n,
  };
}

/** One platform as the tests drive it: an account, its posts, and what the platform says now. */
interface Side {
  csv: string;
  path: string;
  record: string;
  addPost(likes: number, createdAt?: string): string;
  update(id: string, counts: Partial<Counts>): void;
  remove(id: string): void;
  current(id: string): Counts;
}

function xSide(w: World, followers: number): Side {
  const jack = w.x.addUser({ username: 'jack', followers });
  return {
    csv: 'username\njack\n',
    path: '/api/accounts/x/jack/posts?limit=100',
    record: '/api/?username=jack&platform=x',
    addPost: (likes, createdAt) =>
      w.x.addPost(jack.id, {
        text: `a post with ${likes} likes`,
        likes,
        reposts: 2,
        replies: 1,
        ...(createdAt ? { createdAt } : {}),
      }).id,
    update: (id, counts) => void w.x.updatePost(id, counts),
    remove: (id) => w.x.deletePost(id),
    current: (id) => w.x.world.post(id),
  };
}

function bskySide(w: World, followers: number): Side {
  const alice = w.bsky.addUser({ handle: 'alice.bsky.social', followers });
  return {
    csv: 'username\nalice.bsky.social\n',
    path: '/api/accounts/bluesky/alice.bsky.social/posts?limit=100',
    record: '/api/?username=alice.bsky.social&platform=bluesky',
    addPost: (likes, createdAt) =>
      w.bsky.addPost(alice.did, {
        text: `a post with ${likes} likes`,
        likes,
        reposts: 2,
        replies: 1,
        ...(createdAt ? { createdAt } : {}),
      }).uri,
    update: (id, counts) => void w.bsky.updatePost(id, counts),
    remove: (id) => w.bsky.deletePost(id),
    current: (id) => {
      const post = w.bsky.post(id);
      if (!post) throw new Error(`no post ${id}`);
      return post;
    },
  };
}

async function importCsv(w: World, csv: string): Promise<void> {
  const response = await w.api.app.inject({
    method: 'POST',
    url: '/api/admin/insert',
    headers: admin,
    payload: { file: csv },
  });
  assert.equal(response.statusCode, 200, response.body);
}

const postById = (page: { data: { id: string }[] }, id: string) => page.data.find((p) => p.id === id) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

for (const [platform, sideOf] of [
  ['x', xSide],
  ['bluesky', bskySide],
] as const) {
  describe(`post metrics that stay true on ${platform}`, () => {
    it('likes gained after the first read show in /posts and in analysis.engagement after the next check', async (t) => {
      const w = await world(t);
      const side = sideOf(w, 1000);
      const p1 = side.addPost(10);
      const p2 = side.addPost(5);
      await importCsv(w, side.csv);
      await w.tick();
      const first = await w.get(side.path);
      assert.equal(postById(first, p1).metrics.likes, 10);
      const firstRead = new Date(w.api.clock.now()).toISOString();
      assert.equal(postById(first, p1).metricsObservedAt, firstRead);

      side.update(p1, { likes: 510, replies: 30 });
      side.update(p2, { likes: 405, quotes: 4 });
      w.advance(HOUR);
      await w.tick();
      const now = new Date(w.api.clock.now()).toISOString();
      const page = await w.get(side.path);
      assert.deepEqual(postById(page, p1).metrics, { likes: 510, reposts: 2, replies: 30, quotes: 0 });
      assert.deepEqual(postById(page, p2).metrics, { likes: 405, reposts: 2, replies: 1, quotes: 4 });
      assert.equal(postById(page, p1).metricsObservedAt, now);
      assert.equal(postById(page, p1).status, 'live');

      const record = await w.get(side.record);
      const { likesFirst24h, ...engagement } = record.analysis.engagement;
      assert.deepEqual(engagement, engagementOf([side.current(p1), side.current(p2)], 1000));
      assert.equal(likesFirst24h, null, 'no post is a day old yet');
      assert.equal(record.analysis.topPosts[0].id, p1);
      assert.equal(record.analysis.topPosts[0].likes, 510);
    });

    it('a post deleted on the platform is marked, keeps its last numbers and leaves the analysis', async (t) => {
      const w = await world(t);
      const side = sideOf(w, 200);
      const kept = side.addPost(8);
      const gone = side.addPost(90);
      await importCsv(w, side.csv);
      await w.tick();
      side.remove(gone);
      side.update(kept, { likes: 12 });
      w.advance(HOUR);
      await w.tick();
      const page = await w.get(side.path);
      assert.equal(postById(page, gone).status, 'deleted');
      assert.equal(postById(page, gone).statusSince, new Date(w.api.clock.now()).toISOString());
      assert.equal(postById(page, gone).metrics.likes, 90, 'the last numbers read, dated by metricsObservedAt');
      assert.equal(postById(page, kept).status, 'live');
      const record = await w.get(side.record);
      const { likesFirst24h: _ignored, ...engagement } = record.analysis.engagement;
      assert.deepEqual(engagement, engagementOf([side.current(kept)], 200));
      assert.deepEqual(
        record.analysis.topPosts.map((p: { id: string }) => p.id),
        [kept],
      );

      // A deleted post is not asked for again, and keeps the time it was found gone.
      w.advance(HOUR);
      await w.tick();
      assert.equal(postById(await w.get(side.path), gone).statusSince, postById(page, gone).statusSince);
    });
  });
}

describe('the OpenAPI document', () => {
  it("says how fresh the posts' metrics are and describes metricsObservedAt, status and the history", async (t) => {
    const w = await world(t);
    const response = await w.api.app.inject({ method: 'GET', url: '/api/openapi.json' });
    const operation = response.json().paths['/api/accounts/{platform}/{username}/posts'].get;
    assert.match(operation.description, /POST_REFRESH_WINDOW/);
    assert.match(operation.description, /metricsObservedAt/);
    const post = operation.responses['200'].content['application/json'].schema.properties.data.items;
    for (const field of ['metrics', 'metricsObservedAt', 'status', 'statusSince', 'metricsHistory'])
      assert.ok(post.properties[field], field);
    assert.ok(post.required.includes('metricsObservedAt'));
  });
});

describe('post refresh within the limits', () => {
  it('X: with a tight daily read budget, profiles come first, refreshes take what is left, and what X does not bill twice is free', async (t) => {
    // Seven reads a day for one account: its profile, and what is left above the day's profile checks.
    const w = await world(t, { X_DAILY_READ_BUDGET: '7', TRACK_CONCURRENCY: '1' });
    const side = xSide(w, 100);
    const ids = [1, 2, 3, 4, 5].map((n) => side.addPost(n, new Date(w.api.clock.now() - n * 600_000).toISOString()));
    await importCsv(w, side.csv);
    const reads = async (day: string) =>
      Number(
        (
          await w.api.deps.store.db
            .selectFrom('platform_usage')
            .select('reads')
            .where('platform', '=', 'x')
            .where('day', '=', day)
            .executeTakeFirst()
        )?.reads ?? 0,
      );
    const lookups = () => w.x.requests.filter((r) => r.path === '/2/tweets');
    await w.tick(); // 2026-11-23 12:00: one profile and its five posts (the first read asks for no more than the count)
    assert.equal(await reads('2026-11-23'), 6);

    // A re-check the same UTC day, and a refresh of posts already read today, are free: X bills once a day.
    for (const id of ids) side.update(id, { likes: 100 });
    w.advance(HOUR);
    await w.tick();
    assert.equal(lookups().length, 1);
    assert.equal(await reads('2026-11-23'), 6, 'nothing billed twice');

    // Next day, 00:30: the profile and one new post are read; the five older posts' refresh would
    // leave nothing for the profile check the day still owes: it waits.
    for (const id of ids) side.update(id, { likes: 200 });
    w.advance(11.5 * HOUR);
    side.addPost(6, new Date(w.api.clock.now() - 60_000).toISOString());
    await w.tick();
    const account = await w.get(side.record);
    assert.equal(account.tracking.lastCheckedAt, new Date(w.api.clock.now()).toISOString(), 'the profile was checked');
    assert.equal(lookups().length, 1, 'no post lookup');
    const waited = await w.get(side.path);
    assert.equal(postById(waited, ids[0]!).metrics.likes, 100);
    assert.equal(await reads('2026-11-24'), 2);

    // 23:30: the profile was billed today, so its re-check is free and keeps nothing back; the refresh goes.
    w.advance(23 * HOUR);
    await w.tick();
    assert.equal(lookups().length, 2);
    const page = await w.get(side.path);
    for (const id of ids) assert.equal(postById(page, id).metrics.likes, 200);
    assert.equal(await reads('2026-11-24'), 7);
  });

  it('X: lookups hold at most 100 posts, at most the 100 newest per account, and stop where the rate limit does', async (t) => {
    const w = await world(t);
    const a = w.x.addUser({ username: 'busy', followers: 10 });
    const b = w.x.addUser({ username: 'calm', followers: 10 });
    const start = w.api.clock.now();
    const older = Array.from(
      { length: 100 },
      (_, i) => w.x.addPost(a.id, { text: `a${i}`, createdAt: new Date(start - 2 * HOUR + i * 1000).toISOString() }).id,
    );
    const calm = Array.from(
      { length: 50 },
      (_, i) => w.x.addPost(b.id, { text: `b${i}`, createdAt: new Date(start - 2 * HOUR + i * 1000).toISOString() }).id,
    );
    await importCsv(w, 'username\nbusy\ncalm\n');
    await w.tick();
    const newer = Array.from({ length: 30 }, (_, i) => w.x.addPost(a.id, { text: `a-new${i}` }).id);
    const lookups = () =>
      w.x.requests.filter((r) => r.path === '/2/tweets').map((r) => r.query.get('ids')?.split(',') ?? []);

    w.advance(HOUR);
    await w.tick();
    assert.deepEqual(
      lookups()
        .map((ids) => ids.length)
        .sort((x, y) => y - x),
      [100, 50],
      '150 stored posts in two requests',
    );

    w.advance(HOUR);
    w.x.resetStats();
    await w.tick();
    const asked = new Set(lookups().flat());
    assert.ok(lookups().every((ids) => ids.length <= 100));
    assert.equal(asked.size, 150);
    for (const id of [...newer, ...older.slice(30), ...calm])
      assert.ok(asked.has(id), `${id} is among the newest 100 of its account`);
    for (const id of older.slice(0, 30)) assert.ok(!asked.has(id), 'the 31st newest and older are not read again');

    // One request left in the window: one lookup goes, no 429, the rest waits for the next check.
    w.x.setRateLimit('tweets_by_ids', 1);
    w.advance(HOUR);
    w.x.resetStats();
    await w.tick();
    assert.equal(lookups().length, 1);
    assert.equal(w.x.tooManyRequests, 0);
  });

  it('Bluesky: getPosts holds at most 25 uris', async (t) => {
    const w = await world(t);
    const side = bskySide(w, 10);
    const start = w.api.clock.now();
    for (let i = 0; i < 60; i++) side.addPost(i, new Date(start - HOUR + i * 1000).toISOString());
    await importCsv(w, side.csv);
    await w.tick();
    w.advance(HOUR);
    await w.tick();
    assert.deepEqual(
      w.bsky.requestsTo('getPosts').map((r) => r.query.getAll('uris').length),
      [25, 25, 10],
    );
  });
});

describe('the per-post history', () => {
  it('keeps one sample at 1h, 6h, 24h, 72h and 7d of age, no more, and likesFirst24h reads the 24h one', async (t) => {
    const w = await world(t);
    const side = xSide(w, 100);
    const created = w.api.clock.now() - HOUR / 2;
    const id = side.addPost(1, new Date(created).toISOString());
    await importCsv(w, side.csv);
    const lookups = () => w.x.requests.filter((r) => r.path === '/2/tweets').length;
    await w.tick(); // first read at 30 min of age: no checkpoint yet
    // Checks at these ages (hours); the post has 10 × age likes at each.
    for (const age of [1.6, 6.1, 24.3, 72.2, 100, 168.4]) {
      side.update(id, { likes: Math.round(age * 10) });
      w.advance(created + age * HOUR - w.api.clock.now());
      await w.tick();
    }
    const asked = lookups();
    // Past the window (it was last read at 7 d of age): not read again.
    w.advance(7 * HOUR);
    await w.tick();
    assert.equal(lookups(), asked);

    const post = postById(await w.get(side.path), id);
    assert.deepEqual(
      post.metricsHistory.map((s: { age: string; likes: number }) => [s.age, s.likes]),
      [
        ['1h', 16],
        ['6h', 61],
        ['24h', 243],
        ['72h', 722],
        ['7d', 1684],
      ],
    );
    assert.equal(post.metricsHistory[2].observedAt, new Date(created + 24.3 * HOUR).toISOString());
    assert.equal(post.metrics.likes, 1684);
    // Outside the 30 days of analysis it would not count; at 7 d it still does.
    assert.equal((await w.get(side.record)).analysis.engagement.likesFirst24h, 243);
    const row = await w.api.deps.store.db
      .selectFrom('posts')
      .select('metrics_history')
      .where('post_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(row.metrics_history).length, 5, 'bounded in storage too');
  });
});
