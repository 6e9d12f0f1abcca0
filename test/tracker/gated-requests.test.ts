// Every upstream request passes the shared rate gate, not only the first of a call: X's 400
// splitting and Bluesky's getProfile fallbacks and feed pages never run past a window, on a
// virtual clock against the local servers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tracker } from '../../src/tracker/tracker.ts';
import { trackerWorld, type TrackerWorld } from '../helpers/tracker.ts';

const WINDOW = 15 * 60_000;

/** Ticks on virtual time, five minutes apart, until `done` (what waits for a window goes later). */
async function settle(tracker: Tracker, w: TrackerWorld, done: () => Promise<boolean>): Promise<void> {
  for (let round = 0; round < 30; round++) {
    await tracker.tick();
    if (await done()) return;
    w.clock.advance(5 * 60_000);
  }
  assert.fail('did not settle within 30 rounds');
}

test('X: the requests that isolate a name X refuses wait for the window like any other', async (t) => {
  const w = await trackerWorld(t);
  for (let i = 0; i < 4; i++) w.x.addUser({ username: `ok${i}` });
  await w.importCsv('username\nok0\nok1\nok2\nok3\n');
  // A name X refuses outright (stored before validation existed): its batch is refused with 400
  // and asked again without it, which takes a second request.
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
  w.x.setRateLimit('users_by', 1, WINDOW);
  const start = w.clock.now();
  const tracker = w.tracker();
  await tracker.tick();
  // The request that would isolate the refused name found no room: what the first request learnt
  // is kept (the refused name is settled) and the others are asked again once the window reopens,
  // instead of the same first request being sent again in every window.
  assert.equal((await w.account('x', 'bad-name')).status, 'not_found');
  await settle(tracker, w, async () =>
    (await Promise.all([0, 1, 2, 3].map((i) => w.account('x', `ok${i}`)))).every((a) => a.status === 'active'),
  );
  assert.equal(w.x.tooManyRequests, 0, 'no request ran past the window');
  const lookups = w.x.requests.filter((r) => r.path === '/2/users/by');
  const reset = Math.ceil((start + WINDOW) / 1000) * 1000;
  assert.ok(
    lookups.length >= 2 && lookups.slice(1).every((r) => r.at >= reset),
    `requests at ${lookups.map((r) => r.at - start).join(', ')} ms`,
  );
});

test('Bluesky: getProfile fallbacks and feed pages share the AppView window and never cause a 429', async (t) => {
  const w = await trackerWorld(t);
  const poster = w.bsky.addUser({ handle: 'poster.bsky.social' });
  for (let i = 0; i < 150; i++) w.bsky.addPost(poster.did, { text: `post ${i}` });
  for (const handle of ['gone1.bsky.social', 'gone2.bsky.social', 'gone3.bsky.social'])
    w.bsky.takedown(w.bsky.addUser({ handle }).did);
  await w.importCsv('username\nposter.bsky.social\ngone1.bsky.social\ngone2.bsky.social\ngone3.bsky.social\n');
  // Three requests per window on each endpoint; the client's gate counts them all as one window.
  for (const endpoint of ['getProfiles', 'getProfile', 'getAuthorFeed'] as const)
    w.bsky.setRateLimit(endpoint, 3, WINDOW);
  const gone = ['gone1.bsky.social', 'gone2.bsky.social', 'gone3.bsky.social'];
  const postsStored = async () => (await w.store.db.selectFrom('posts').select('post_id').execute()).length;
  await settle(
    w.tracker(),
    w,
    async () =>
      (await Promise.all(gone.map((h) => w.account('bluesky', h)))).every((a) => a.status === 'suspended') &&
      (await postsStored()) === 100,
  );
  assert.equal(w.bsky.tooManyRequests, 0, 'no fallback or feed page ran past the window');
});
