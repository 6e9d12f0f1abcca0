// `perch serve` SIGKILLed in the middle of a burst of Jetstream post frames loses nothing and
// announces nothing twice: every batch's posts, its account.posted events and the shard's cursor
// commit together, so the killed process leaves as many events as posts; after the restart the
// shard resumes from its cursor (minus the rewind, replaying frames already applied), and each
// post of the burst, those published while perch was down included, is stored once and announced once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { POSTS_STREAM } from '../../src/domain/stream-shards.ts';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeJetstream } from '../../src/simulators/jetstream-server.ts';
import { perchProcesses } from '../helpers/perch-processes.ts';
import { insertStreamedAccounts, publishPost } from '../helpers/streamed-accounts.ts';
import { until } from '../stream/harness.ts';

const ACCOUNTS = 40;
const BURST = 4_000;

test('perch SIGKILLed in a burst of post frames stores and announces each post once after its restart', async (t) => {
  const [bsky, jetstream] = await Promise.all([startFakeBluesky(), startFakeJetstream()]);
  const perch = await perchProcesses(t, [bsky, jetstream]);
  const { store } = perch;
  const dids = Array.from({ length: ACCOUNTS }, (_, i) => `did:plc:${String(i).padStart(24, 'k')}`);
  await insertStreamedAccounts(store, dids, (i) => `k${i}.bsky.social`);
  const env = {
    ...perch.env,
    TRACKER: 'on',
    TRACK_INTERVAL: '1h',
    BLUESKY_API_BASE_URL: bsky.url,
    X_API_BASE_URL: 'http://127.0.0.1:9',
    BLUESKY_JETSTREAM_URL: jetstream.url,
    JETSTREAM_REWIND: '5s',
    // The killed process's lease on the shard ends soon, so the restarted one takes it over quickly.
    JETSTREAM_LEASE: '3s',
    FOLLOWER_LIST_MAX: '0',
  };
  const publish = (i: number) =>
    publishPost(jetstream, dids[i % ACCOUNTS]!, `3lkill${String(i).padStart(7, '0')}`, `burst post ${i}`);
  const count = async (table: 'posts' | 'events') =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  const first = await perch.start('serve', env);
  await until(() => dids.every((did) => jetstream.wants(did)), 30_000, 'the shard followed');
  // The first post loads the text models; the burst then meets a warm consumer.
  publish(0);
  await until(async () => (await count('posts')) === 1, 30_000, 'the first post');

  // The burst, published faster than one process applies it; perch is killed once part is stored,
  // and the rest keeps coming while it is down (the local Jetstream keeps it for replay).
  let published = 1;
  const burst = (async () => {
    while (published < BURST) {
      for (const end = Math.min(BURST, published + 200); published < end; published += 1) publish(published);
      await turn();
    }
  })();
  await until(async () => (await count('posts')) >= 300, 30_000, 'part of the burst stored');
  first.child.kill('SIGKILL');
  assert.equal((await first.exited).signal, 'SIGKILL');
  const shardCursor = async () =>
    Number(
      (
        await store.db
          .selectFrom('stream_shards')
          .select('cursor_us')
          .where('stream', '=', POSTS_STREAM)
          .executeTakeFirst()
      )?.cursor_us ?? 0,
    );
  const cursorAtKill = await shardCursor();
  const postsAtKill = await count('posts');
  const eventsAtKill = await count('events');
  assert.ok(postsAtKill < BURST, `killed mid-burst: ${postsAtKill} of ${BURST} stored`);
  assert.equal(eventsAtKill, postsAtKill, 'each stored post has its event, committed with it');
  await burst;

  await perch.start('serve', env);
  await until(async () => (await count('posts')) === BURST, 30_000, 'the whole burst stored after the restart');
  // Replayed frames (the rewind) must have changed nothing: wait until the shard's cursor has
  // passed the last frame, then count.
  const lastUs = jetstream.events.at(-1)!.time_us;
  await until(async () => (await shardCursor()) >= lastUs, 10_000, 'the cursor at the last frame');
  // The restart asked for frames from before its cursor: those were applied again, changing nothing.
  const resumed = jetstream.connections.filter((c) => c.wantedDids === ACCOUNTS).at(-1)!;
  assert.ok(resumed.cursor !== null && resumed.cursor < cursorAtKill, 'the restart replayed frames it had applied');
  const events = await store.db.selectFrom('events').select('data').where('type', '=', 'account.posted').execute();
  const announced = events.map((e) => (JSON.parse(e.data) as { post: { id: string } }).post.id);
  assert.equal(announced.length, BURST, 'announced once each');
  assert.equal(new Set(announced).size, BURST);
  const stored = await store.db.selectFrom('posts').select('post_id').execute();
  assert.deepEqual(new Set(stored.map((p) => p.post_id)), new Set(announced), 'announced what was stored');
});
