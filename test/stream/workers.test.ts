// Two `perch worker` processes on PostgreSQL following 25,000 tracked Bluesky DIDs (3 shards) on a
// local Jetstream: each shard has exactly one owner (one connection), a worker killed with SIGKILL
// has its shards taken over within the lease time, and no post is stored or announced twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planShards, POSTS_STREAM } from '../../src/domain/stream-shards.ts';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeJetstream } from '../../src/simulators/jetstream-server.ts';
import { perchProcesses } from '../helpers/perch-processes.ts';
import { dialectName } from '../helpers/store-url.ts';
import { insertStreamedAccounts, publishPost } from '../helpers/streamed-accounts.ts';
import { until } from './harness.ts';
const POST_COLLECTION = 'app.bsky.feed.post';

const N = 25_000;

test(
  'two workers share 3 shards of 25,000 DIDs, one owner each; a SIGKILLed worker’s shards move and nothing is stored or announced twice',
  { skip: dialectName !== 'postgres' && 'shard leases across processes run on PostgreSQL', timeout: 120_000 },
  async (t) => {
    const [bsky, jetstream] = await Promise.all([startFakeBluesky(), startFakeJetstream()]);
    const perch = await perchProcesses(t, [bsky, jetstream]);
    const { store } = perch;
    const dids = Array.from({ length: N }, (_, i) => `did:plc:${String(i).padStart(24, 'w')}`);
    await insertStreamedAccounts(store, dids, (i) => `u${i}.bsky.social`);
    const plan = planShards(dids);
    assert.equal(plan.length, 3);
    const env = {
      ...perch.env,
      TRACKER: 'on',
      TRACK_INTERVAL: '1h',
      BLUESKY_API_BASE_URL: bsky.url,
      X_API_BASE_URL: 'http://127.0.0.1:9',
      BLUESKY_JETSTREAM_URL: jetstream.url,
      JETSTREAM_LEASE: '3s',
      JETSTREAM_REWIND: '1s',
      // Follower lists are another feature's reads: left out of this test's load.
      FOLLOWER_LIST_MAX: '0',
    };
    const workers = await Promise.all([perch.start('worker', env), perch.start('worker', env)]);
    const owners = await Promise.all(
      workers.map(async (w) => String((await w.waitForLog((line) => line.msg === 'worker started')).owner)),
    );
    const shardRows = () =>
      store.db
        .selectFrom('stream_shards')
        .select(['shard', 'lease_owner'])
        .where('stream', '=', POSTS_STREAM)
        .execute();
    await until(
      () => plan.every((shard) => jetstream.wants(shard[0]!)) && jetstream.openConnectionsFor(POST_COLLECTION) === 3,
      60_000,
      '3 shards followed',
    );
    const rows = await shardRows();
    assert.equal(rows.length, 3);
    assert.ok(
      rows.every((r) => r.lease_owner !== null && owners.includes(r.lease_owner)),
      'one owner each',
    );
    assert.equal(jetstream.openConnectionsFor(POST_COLLECTION), 3, 'one connection per shard');

    let rkey = 0;
    const publish = (did: string) => {
      rkey += 1;
      return publishPost(jetstream, did, `3lpost${String(rkey).padStart(7, '0')}`, `post ${rkey}`);
    };
    const counts = async () => {
      const posts = await store.db.selectFrom('posts').select('post_id').execute();
      const events = await store.db.selectFrom('events').select('data').where('type', '=', 'account.posted').execute();
      return {
        posts: posts.length,
        events: events.length,
        distinct: new Set(events.map((e) => (JSON.parse(e.data) as { post: { id: string } }).post.id)).size,
      };
    };
    for (const shard of plan) publish(shard[0]!);
    await until(
      async () => (await counts()).posts === 3,
      15_000,
      'the posts of every shard (the first batch loads the text models)',
    );

    // Kill the worker holding the most shards, in the middle of a burst of posts.
    const held = (owner: string) => rows.filter((r) => r.lease_owner === owner).length;
    const victimIndex = held(owners[0]!) >= held(owners[1]!) ? 0 : 1;
    const survivor = owners[1 - victimIndex]!;
    for (let i = 0; i < 30; i += 1) publish(plan[i % 3]![1 + Math.floor(i / 3)]!);
    workers[victimIndex]!.child.kill('SIGKILL');
    for (let i = 30; i < 60; i += 1) publish(plan[i % 3]![1 + Math.floor(i / 3)]!);
    const killedAt = Date.now();
    await until(async () => (await shardRows()).every((r) => r.lease_owner === survivor), 15_000, 'the takeover');
    assert.ok(Date.now() - killedAt < 3_000 + 4_000, 'within the lease time (and a renewal)');
    await until(async () => (await counts()).posts === 63, 15_000, 'every post stored');
    const final = await counts();
    assert.deepEqual(final, { posts: 63, events: 63, distinct: 63 }, 'each post stored and announced once');
    assert.equal(jetstream.openConnectionsFor(POST_COLLECTION), 3);
  },
);
