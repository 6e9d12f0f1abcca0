// The tracker end to end on a real store against the local platform servers: first checks,
// state mapping for every platform error shape, renames, one bad account in a batch, posts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { createXClient } from '../../src/platforms/x.ts';
import { systemClock } from '../../src/clock.ts';
import { trackerWorld } from '../helpers/tracker.ts';

const HOUR = 3_600_000;

test('a new X account becomes active with profile, metrics, a snapshot, posts and analysis', async (t) => {
  const w = await trackerWorld(t);
  const jack = w.x.addUser({
    username: 'jack',
    name: 'Jack',
    followers: 1000,
    following: 10,
    listed: 3,
    description: 'just setting up',
  });
  w.x.addPost(jack.id, {
    text: 'Great news today! #launch',
    likes: 10,
    reposts: 2,
    replies: 1,
    hashtags: ['launch'],
    urls: ['https://www.example.com/a'],
    lang: 'en',
  });
  await w.importCsv('username\njack\n');

  const report = await w.tracker().tick();
  assert.equal(report.checked, 1);
  const account = await w.account('x', 'jack');
  assert.equal(account.status, 'active');
  assert.equal(account.platformUserId, jack.id);
  assert.equal(account.profile?.displayName, 'Jack');
  assert.equal(account.metrics?.followers, 1000);
  assert.equal(account.metrics?.posts, 1);
  assert.equal(account.tracking.lastCheckedAt, new Date(w.clock.now()).toISOString());
  assert.equal(account.tracking.nextCheckAt, new Date(w.clock.now() + HOUR).toISOString());
  const analysis = account.analysis as {
    content: { topHashtags: { tag: string }[]; topDomains: { domain: string }[] };
    engagement: { postsConsidered: number };
  };
  assert.equal(analysis.engagement.postsConsidered, 1);
  assert.deepEqual(
    analysis.content.topHashtags.map((h) => h.tag),
    ['launch'],
  );
  assert.deepEqual(
    analysis.content.topDomains.map((d) => d.domain),
    ['example.com'],
  );
  const snapshots = await w.store.db.selectFrom('metric_snapshots').selectAll().execute();
  assert.equal(snapshots.length, 1);
  const posts = await w.store.db.selectFrom('posts').selectAll().execute();
  assert.equal(posts.length, 1);
  assert.equal(posts[0]?.lang, 'en');
  assert.ok((posts[0]?.sentiment ?? 0) > 0, 'a happy post scores positive');
});

test('X error shapes map to states: not found, suspended, protected; gone accounts are re-checked slowly', async (t) => {
  const w = await trackerWorld(t);
  const gone = w.x.addUser({ username: 'gone' });
  const banned = w.x.addUser({ username: 'banned' });
  w.x.addUser({ username: 'private', protected: true, followers: 5 });
  w.x.addUser({ username: 'fine' });
  w.x.remove(gone.id);
  w.x.suspend(banned.id);
  await w.importCsv('username\ngone\nbanned\nprivate\nfine\nnobody\n');
  await w.tracker().tick();

  const states = Object.fromEntries(
    await Promise.all(
      ['gone', 'banned', 'private', 'fine', 'nobody'].map(async (n) => [n, await w.account('x', n)] as const),
    ),
  );
  assert.equal(states.gone?.status, 'not_found');
  assert.equal(states.nobody?.status, 'not_found');
  assert.equal(states.banned?.status, 'suspended');
  assert.match(states.banned?.statusReason ?? '', /suspended/i);
  assert.equal(states.private?.status, 'protected');
  assert.equal(states.private?.metrics?.followers, 5);
  assert.equal(states.fine?.status, 'active');
  // Gone accounts come back six intervals later, live ones one interval later.
  assert.equal(Date.parse(states.gone?.tracking.nextCheckAt ?? '') - w.clock.now(), 6 * HOUR);
  assert.equal(Date.parse(states.fine?.tracking.nextCheckAt ?? '') - w.clock.now(), HOUR);
  // A protected timeline is never asked for.
  assert.equal(w.x.requests.filter((r) => r.path.includes('/tweets')).length, 0);
});

test('Bluesky error shapes map to states: takedown, deactivated, unknown, and a !takedown label', async (t) => {
  const w = await trackerWorld(t);
  const taken = w.bsky.addUser({ handle: 'taken.bsky.social' });
  const off = w.bsky.addUser({ handle: 'off.bsky.social' });
  const labelled = w.bsky.addUser({ handle: 'labelled.bsky.social' });
  w.bsky.addUser({ handle: 'alice.bsky.social', followers: 42 });
  w.bsky.takedown(taken.did);
  w.bsky.deactivate(off.did);
  w.bsky.label(labelled.did, '!takedown');
  await w.importCsv(
    'username\ntaken.bsky.social\noff.bsky.social\nlabelled.bsky.social\nalice.bsky.social\nghost.bsky.social\n',
  );
  await w.tracker().tick();

  assert.equal((await w.account('bluesky', 'taken.bsky.social')).status, 'suspended');
  assert.equal((await w.account('bluesky', 'labelled.bsky.social')).status, 'suspended');
  assert.equal((await w.account('bluesky', 'off.bsky.social')).status, 'not_found');
  assert.equal((await w.account('bluesky', 'ghost.bsky.social')).status, 'not_found');
  const alice = await w.account('bluesky', 'alice.bsky.social');
  assert.equal(alice.status, 'active');
  assert.equal(alice.metrics?.followers, 42);
});

test('a renamed account is followed by its id: new name, a renames entry, history kept', async (t) => {
  for (const platform of ['x', 'bluesky'] as const) {
    await t.test(platform, async (t) => {
      const w = await trackerWorld(t);
      let id: string;
      if (platform === 'x') {
        id = w.x.addUser({ username: 'oldname', followers: 100 }).id;
        await w.importCsv('username\noldname\n');
      } else {
        id = w.bsky.addUser({ handle: 'oldname.bsky.social', followers: 100 }).did;
        await w.importCsv('username\noldname.bsky.social\n');
      }
      const tracker = w.tracker();
      await tracker.tick();
      const newName = platform === 'x' ? 'NewName' : 'newname.bsky.social';
      if (platform === 'x') {
        w.x.rename(id, newName);
        w.x.updateUser(id, { followers: 150 });
      } else {
        w.bsky.rename(id, newName);
        w.bsky.updateUser(id, { followers: 150 });
      }
      w.clock.advance(HOUR);
      await tracker.tick();

      const account = await w.account(platform, newName);
      assert.equal(account.username, newName);
      assert.equal(account.platformUserId, id);
      assert.equal(account.metrics?.followers, 150);
      assert.deepEqual(
        account.renames.map((r) => [r.from, r.to]),
        [[platform === 'x' ? 'oldname' : 'oldname.bsky.social', newName]],
      );
      const history = await w.store.db.selectFrom('metric_snapshots').select(['followers']).orderBy('bucket').execute();
      assert.deepEqual(
        history.map((h) => Number(h.followers)),
        [100, 150],
      );
      const old = await w.store.db
        .selectFrom('accounts')
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(old.n), 1, 'still one account, not a lost one and a new one');
    });
  }
});

test('one bad account never fails its batch', async (t) => {
  const w = await trackerWorld(t);
  for (let i = 0; i < 20; i++) w.x.addUser({ username: `ok${i}` });
  await w.importCsv(`username\n${Array.from({ length: 20 }, (_, i) => `ok${i}`).join('\n')}\n`);
  // A name X refuses outright (it slipped in before validation existed): X answers the whole
  // batch with 400 invalid-request; the client isolates it and the rest are still checked.
  await w.store.db
    .insertInto('accounts')
    .values({
      platform: 'x',
      username: 'bad-name',
      username_key: 'bad-name',
      tracked_since: w.clock.now(),
      next_check_at: w.clock.now(),
      created_at: w.clock.now(),
      updated_at: w.clock.now(),
    })
    .execute();
  await w.tracker().tick();
  for (let i = 0; i < 20; i++) assert.equal((await w.account('x', `ok${i}`)).status, 'active');
  const bad = await w.account('x', 'bad-name');
  assert.equal(bad.status, 'not_found');
  assert.ok(bad.statusReason, 'the reason is kept');
});

test('new posts are read only when the post count moved, and only those since the last seen id', async (t) => {
  const w = await trackerWorld(t);
  const user = w.x.addUser({ username: 'poster' });
  w.x.addPost(user.id, { text: 'first post' });
  await w.importCsv('username\nposter\n');
  const tracker = w.tracker();
  await tracker.tick();
  const timeline = () => w.x.requests.filter((r) => /^\/2\/users\/[^/]+\/tweets$/.test(r.path));
  assert.equal(timeline().length, 1);

  w.clock.advance(HOUR);
  await tracker.tick();
  assert.equal(timeline().length, 1, 'no new post: no timeline read');

  const second = w.x.addPost(user.id, { text: 'second post', likes: 3 });
  w.clock.advance(HOUR);
  await tracker.tick();
  assert.equal(timeline().length, 2);
  const first = await w.store.db.selectFrom('posts').select('post_id').orderBy('created_at').execute();
  assert.equal(timeline()[1]?.query.get('since_id'), first[0]?.post_id);
  assert.deepEqual(first.map((p) => p.post_id).at(-1), second.id);
});

test('an idle tracker sleeps: X accounts without credentials do not make it spin', async (t) => {
  const w = await trackerWorld(t);
  await w.importCsv('username\njack\n');
  const tracker = w.tracker({ clients: [createXClient({ baseUrl: w.x.url, bearerToken: null })], clock: systemClock });
  tracker.start();
  await delay(400);
  const { ticks, platforms } = tracker.status();
  assert.ok(ticks <= 2, `${ticks} ticks in 400 ms`);
  assert.equal(platforms.x?.configured, false);
  assert.equal(w.x.requests.length, 0);
  assert.equal((await w.account('x', 'jack')).status, 'pending');
});

test('start() then notify(): an import is checked at once, not at the next poll', async (t) => {
  const w = await trackerWorld(t);
  w.x.addUser({ username: 'jack' });
  const tracker = w.tracker({ clock: systemClock });
  tracker.start();
  await delay(100);
  const started = Date.now();
  await w.importCsv('username\njack\n');
  tracker.notify();
  while ((await w.account('x', 'jack')).status === 'pending') {
    assert.ok(Date.now() - started < 2_000, 'checked within 2 s of the import (the idle poll is 5 s)');
    await delay(20);
  }
});

test('text a platform sends with NUL characters is stored without them (PostgreSQL refuses them)', async (t) => {
  const w = await trackerWorld(t);
  const alice = w.bsky.addUser({ handle: 'alice.bsky.social', displayName: 'Al\u0000ice' });
  w.bsky.addPost(alice.did, { text: 'hello\u0000world', langs: ['en'] });
  await w.importCsv('username\nalice.bsky.social\n');
  assert.equal((await w.tracker().tick()).checked, 1);
  const account = await w.account('bluesky', 'alice.bsky.social');
  assert.equal(account.status, 'active');
  assert.equal(account.profile?.displayName, 'Alice');
  const posts = await w.store.db.selectFrom('posts').select('text').execute();
  assert.deepEqual(
    posts.map((p) => p.text),
    ['helloworld'],
  );
});
