// Bench: the Jetstream consumer of one process on SQLite. (1) Post frames for tracked DIDs applied
// per second (each stored as polling stores it, with its account.posted event, in the shard's
// transaction with its cursor), beside a baseline: the same posts and events written straight
// through the repositories in batches, no WebSocket and no parsing. (2) Frame-to-stored latency
// p99 while frames arrive at 1,000/s.
// Run: npm run bench -- jetstream   (env BENCH_JETSTREAM_FRAMES, BENCH_TMPDIR)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { accountPublicId } from '../src/domain/ids.ts';
import { postedEvent } from '../src/domain/post-events.ts';
import { startFakeJetstream } from '../src/simulators/jetstream-server.ts';
import { recordEvents } from '../src/storage/events-repo.ts';
import { insertPosts } from '../src/storage/posts-repo.ts';
import { openStore, type Store } from '../src/storage/store.ts';
import { createBlueskyStream } from '../src/stream/create-stream.ts';
import { newPost } from '../src/tracker/account-result.ts';
import { loadTextModels } from '../src/tracker/text-models.ts';
import { figure, fmt, heading, percentile, summary, target, type Verdict } from './lib/report.ts';

const FRAMES = Number(process.env.BENCH_JETSTREAM_FRAMES ?? 20_000);
const ACCOUNTS = 1_000;
const RATE = 1_000;
const LATENCY_SECONDS = 5;
const verdicts: Verdict[] = [];
const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-jetstream-'));
const dids = Array.from({ length: ACCOUNTS }, (_, i) => `did:plc:${String(i).padStart(24, 'b')}`);

async function fill(name: string): Promise<Store> {
  const store = await openStore(`file:${join(dir, `${name}.db`)}`);
  const now = Date.now();
  await store.db
    .insertInto('accounts')
    .values(
      dids.map((did, i) => ({
        platform: 'bluesky',
        username: `u${i}.bsky.social`,
        username_key: `u${i}.bsky.social`,
        platform_user_id: did,
        status: 'active',
        tracked_since: now,
        next_check_at: now + 3_600_000,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  return store;
}

const record = (i: number) => ({
  $type: 'app.bsky.feed.post',
  text: `post number ${i} #bench`,
  createdAt: new Date().toISOString(),
});
const rkey = (i: number) => `3lbench${String(i).padStart(8, '0')}`;
// Frames of one shard are applied in order: once the last one's post is stored, all are. Counting
// the table while the burst runs would cost the process measured a scan every few milliseconds.
const storedPost = async (store: Store, did: string, key: string) =>
  (await store.reader
    .selectFrom('posts')
    .select('post_id')
    .where('post_id', '=', `at://${did}/app.bsky.feed.post/${key}`)
    .executeTakeFirst()) !== undefined;
const waitFor = async (check: () => Promise<boolean>) => {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
};
const stored = async (store: Store) =>
  Number(
    (
      await store.db
        .selectFrom('posts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst()
    )?.n,
  );

try {
  heading(`Jetstream consumer: ${fmt.int(FRAMES)} post frames of ${fmt.int(ACCOUNTS)} tracked DIDs, SQLite`);
  // Baseline: the same rows and events through the repositories, 500 a transaction.
  const base = await fill('baseline');
  const models = await loadTextModels();
  const started = performance.now();
  const baseCpu = process.cpuUsage();
  for (let at = 0; at < FRAMES; at += 500) {
    await base.db.transaction().execute(async (trx) => {
      const posts = Array.from({ length: Math.min(500, FRAMES - at) }, (_, k) => {
        const i = at + k;
        const did = dids[i % ACCOUNTS]!;
        const r = record(i);
        return newPost(
          (i % ACCOUNTS) + 1,
          {
            id: `at://${did}/app.bsky.feed.post/${rkey(i)}`,
            createdAt: r.createdAt,
            text: r.text,
            lang: null,
            isRepost: false,
            isReply: false,
            url: null,
            likes: 0,
            reposts: 0,
            replies: 0,
            quotes: 0,
            hashtags: ['bench'],
            mentions: [],
            domains: [],
          },
          Date.now(),
          7_200_000,
          models,
        );
      });
      const added = await insertPosts(trx, base.caps, posts, 200);
      const events = added.map((p) =>
        postedEvent(
          {
            accountId: p.accountId,
            account: { id: accountPublicId(p.accountId), platform: 'bluesky', username: 'u', platformUserId: null },
          },
          p,
          'stream',
        ),
      );
      await recordEvents(trx, base.caps, events, Date.now());
    });
  }
  const baseRate = FRAMES / ((performance.now() - started) / 1000);
  const baseUsed = process.cpuUsage(baseCpu);
  const baseCpuUs = baseUsed.user + baseUsed.system;
  await base.close();

  const store = await fill('stream');
  const jetstream = await startFakeJetstream();
  const config = createConfig({
    DATABASE_URL: `file:${join(dir, 'stream.db')}`,
    BLUESKY_JETSTREAM_URL: jetstream.url,
    JETSTREAM_LEASE: '10s',
  });
  const stream = createBlueskyStream(config, store, createLogger('warn'), {
    owner: 'bench',
    role: 'serve',
    wakeTracker: () => {},
  });
  stream.start();
  while (!dids.every((did) => jetstream.wants(did))) await new Promise((resolve) => setTimeout(resolve, 20));
  // Warm up (text models, statements), then the burst.
  for (let i = 0; i < 200; i += 1)
    jetstream.commit(dids[i % ACCOUNTS]!, {
      operation: 'create',
      collection: 'app.bsky.feed.post',
      rkey: rkey(1e7 + i),
      record: record(i),
    });
  await waitFor(() => storedPost(store, dids[199]!, rkey(1e7 + 199)));
  const burst = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < FRAMES; i += 1) {
    jetstream.commit(dids[i % ACCOUNTS]!, {
      operation: 'create',
      collection: 'app.bsky.feed.post',
      rkey: rkey(i),
      record: record(i),
    });
    if (i % 1_000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  await waitFor(() => storedPost(store, dids[(FRAMES - 1) % ACCOUNTS]!, rkey(FRAMES - 1)));
  const rate = FRAMES / ((performance.now() - burst) / 1000);
  const used = process.cpuUsage(cpu);
  if ((await stored(store)) !== FRAMES + 200) throw new Error('the burst was not stored whole');
  figure('baseline: repositories straight, 500 a transaction', `${fmt.int(baseRate)}/s`);
  // On a shared machine the wall-clock rates move with the neighbours' load; CPU time less so.
  figure('baseline CPU time per post', `${fmt.int(baseCpuUs / FRAMES)} µs`);
  figure(
    'burst CPU time per frame (consumer and local Jetstream)',
    `${fmt.int((used.user + used.system) / FRAMES)} µs`,
  );
  verdicts.push(target('post frames applied per second', `${fmt.int(rate)}/s`, '≥ 5,000/s', rate >= 5_000));

  // Latency: frames at 1,000/s for a few seconds; each post's fetched_at is when it was stored.
  const sent = new Map<string, number>();
  const total = RATE * LATENCY_SECONDS;
  const t0 = Date.now();
  for (let i = 0; i < total;) {
    const due = Math.min(total, Math.floor(((Date.now() - t0) / 1000) * RATE));
    for (; i < due; i += 1) {
      const did = dids[i % ACCOUNTS]!;
      const key = rkey(2e7 + i);
      jetstream.commit(did, { operation: 'create', collection: 'app.bsky.feed.post', rkey: key, record: record(i) });
      sent.set(`at://${did}/app.bsky.feed.post/${key}`, Date.now());
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await waitFor(async () => (await stored(store)) >= FRAMES + 200 + total);
  const rows = await store.db
    .selectFrom('posts')
    .select(['post_id', 'fetched_at'])
    .where('post_id', 'like', '%3lbench2%')
    .execute();
  const latencies = rows.flatMap((r) => (sent.has(r.post_id) ? [Number(r.fetched_at) - sent.get(r.post_id)!] : []));
  const p99 = percentile(latencies, 0.99) / 1000;
  figure('frame-to-stored p50 at 1,000 frames/s', `${(percentile(latencies, 0.5) / 1000).toFixed(3)} s`);
  verdicts.push(target('frame-to-stored p99 at 1,000 frames/s', `${p99.toFixed(3)} s`, '≤ 2 s', p99 <= 2));
  await stream.stop();
  await jetstream.close();
  await store.close();
  summary(verdicts);
} finally {
  await rm(dir, { recursive: true, force: true });
}
