// perch with its tracker and its Jetstream consumer running, on a real store, against the local
// AppView and the local Jetstream (the world publishes through it), on real time: what the stream
// tests drive. TRACK_INTERVAL is 1h, so anything that happens within seconds came from the stream.
import type { TestContext } from 'node:test';
import { Writable } from 'node:stream';
import { createConfig, type Config } from '../../src/config.ts';
import { composeApp } from '../../src/compose.ts';
import type { AppDeps } from '../../src/app-deps.ts';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '../../src/logger.ts';
import { commitImport, planImport } from '../../src/services/import-accounts.ts';
import { startFakeBluesky, type FakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeJetstream, type FakeJetstream } from '../../src/simulators/jetstream-server.ts';
import { streamWorld } from '../../src/simulators/jetstream-world.ts';
import type { BlueskyStream } from '../../src/stream/bluesky-stream.ts';
import type { FollowStream } from '../../src/stream/follow-stream.ts';
import type { Tracker } from '../../src/tracker/tracker.ts';
import type { Store } from '../../src/storage/store.ts';
import { freshStoreUrl, storeEnv } from '../helpers/store-url.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdefghijklmnop';

export interface StreamHarness {
  app: FastifyInstance;
  deps: AppDeps;
  store: Store;
  config: Config;
  bsky: FakeBluesky;
  jetstream: FakeJetstream;
  stream: BlueskyStream;
  /** The follows stream (live follower changes), started beside the posts stream. */
  followStream: FollowStream;
  tracker: Tracker;
  logs: string[];
  /** Stops publishing the world's changes (and `relink` starts again). */
  unlink(): void;
  relink(): void;
  importHandles(...handles: string[]): Promise<void>;
  accountRow(did: string): Promise<{ id: number; username: string; status: string } | undefined>;
  posts(did: string): Promise<{ post_id: string; status: string; text: string; url: string | null }[]>;
  events(type?: string): Promise<{ type: string; data: Record<string, unknown> }[]>;
  health(): Promise<Record<string, unknown>>;
}

/** Waits until `check` is true (polling every 10 ms), failing after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function streamHarness(
  t: TestContext,
  options: { env?: Record<string, string>; shardSize?: number } = {},
): Promise<StreamHarness> {
  const location = await freshStoreUrl();
  const [bsky, jetstream] = await Promise.all([startFakeBluesky(), startFakeJetstream()]);
  let unlink = streamWorld(bsky, jetstream);
  const config = createConfig({
    DATABASE_URL: location.url,
    ADMIN_API_KEY: ADMIN_KEY,
    KEY_HASH_SECRET: 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz',
    TRACK_INTERVAL: '1h',
    BLUESKY_API_BASE_URL: bsky.url,
    BLUESKY_JETSTREAM_URL: jetstream.url,
    JETSTREAM_REWIND: '1s',
    JETSTREAM_LEASE: '2s',
    LOG_LEVEL: 'info',
    ...storeEnv,
    ...options.env,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const composed = await composeApp(config, {
    logger: createLogger(config.logLevel, { destination, pretty: false }),
    ...(options.shardSize ? { streamShardSize: options.shardSize } : {}),
  });
  const { app, deps, tracker, stream, followStream } = composed;
  if (!tracker || !stream || !followStream) throw new Error('the tracker and the streams should be built');
  t.after(async () => {
    await app.close();
    await Promise.all([bsky.close(), jetstream.close()]);
    await location.drop();
  });
  await app.ready();
  tracker.start();
  stream.start();
  followStream.start();
  const store = deps.store;
  return {
    app,
    deps,
    store,
    config,
    bsky,
    jetstream,
    stream,
    followStream,
    tracker,
    logs,
    unlink: () => unlink(),
    relink: () => {
      unlink = streamWorld(bsky, jetstream);
    },
    async importHandles(...handles) {
      const plan = await planImport(`username\n${handles.join('\n')}\n`, config);
      await commitImport(store, plan, { actor: 'test', source: 'test', clock: { now: () => Date.now() } });
      tracker.notify();
    },
    accountRow: (did) =>
      store.db
        .selectFrom('accounts')
        .select(['id', 'username', 'status'])
        .where('platform_user_id', '=', did)
        .executeTakeFirst(),
    posts: (did) =>
      store.db
        .selectFrom('posts')
        .innerJoin('accounts', 'accounts.id', 'posts.account_id')
        .select(['posts.post_id', 'posts.status', 'posts.text', 'posts.url'])
        .where('accounts.platform_user_id', '=', did)
        .orderBy('posts.created_at')
        .execute(),
    async events(type) {
      let query = store.db.selectFrom('events').select(['type', 'data']).orderBy('seq');
      if (type) query = query.where('type', '=', type);
      return (await query.execute()).map((e) => ({
        type: e.type,
        data: JSON.parse(e.data) as Record<string, unknown>,
      }));
    },
    async health() {
      const response = await app.inject({ method: 'GET', url: '/api/health' });
      return response.json<Record<string, unknown>>();
    },
  };
}

/** Waits until `did` is tracked with its DID known and its shard's connection asks for it. */
export async function subscribed(h: StreamHarness, did: string): Promise<void> {
  await until(async () => (await h.accountRow(did)) !== undefined, 10_000, `${did} resolved`);
  await h.stream.refreshNow();
  await until(() => h.jetstream.wants(did), 5_000, `a subscription to ${did}`);
  // The shard's health is written on the next refresh: polling then skips its timelines.
  await h.stream.refreshNow();
}
