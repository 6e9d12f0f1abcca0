// Bench: follower passes (DESIGN §11) against the local Bluesky AppView in its own process, over
// real HTTP on a real SQLite store: one account with 100,000 followers (a full pass and its close,
// the diff in the store: perch's CPU time and peak RSS above idle), then 1,000 accounts with 1,000
// followers each. What is measured is this process: the client, the rate gate,
// the page writes and the close.
// Run: npm run bench -- followers   (env BENCH_FOLLOWERS, BENCH_FOLLOWER_ACCOUNTS, BENCH_TMPDIR)
import { fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/clock.ts';
import { createConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createBlueskyClient } from '../src/platforms/bluesky.ts';
import { openStore, type Store } from '../src/storage/store.ts';
import { trackerSettings } from '../src/tracker/create-tracker.ts';
import { Tracker } from '../src/tracker/tracker.ts';
import { figure, fmt, heading, summary, target, type Verdict } from './lib/report.ts';

const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 100_000);
const MANY = Number(process.env.BENCH_FOLLOWER_ACCOUNTS ?? 1_000);
const MIB = 1_048_576;

async function appView(subjects: number, followers: number): Promise<{ url: string; dids: string[]; stop(): void }> {
  const child = fork(new URL('./lib/fake-bluesky-followers.ts', import.meta.url).pathname, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FAKE_SUBJECTS: String(subjects), FAKE_FOLLOWERS: String(followers) },
  });
  process.on('exit', () => child.kill('SIGKILL'));
  const ready = await new Promise<{ url: string; dids: string[] }>((resolve, reject) => {
    child.once('message', (m: { url: string; dids: string[] }) => resolve(m));
    child.once('exit', (code) => reject(new Error(`the local AppView exited with code ${code}`)));
  });
  return { ...ready, stop: () => child.kill('SIGTERM') };
}

async function seed(store: Store, dids: readonly string[]): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < dids.length; i += 500)
    await store.db
      .insertInto('accounts')
      .values(
        dids.slice(i, i + 500).map((did, k) => ({
          platform: 'bluesky',
          username: `subject${i + k}.bsky.social`,
          username_key: `subject${i + k}.bsky.social`,
          platform_user_id: did,
          status: 'active',
          followers: 0,
          tracked_since: now,
          next_check_at: now + 86_400_000,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
}

/** Runs follower rounds until none is due; CPU seconds of this process and its peak RSS meanwhile. */
async function measure(tracker: Tracker): Promise<{ cpuS: number; peakRss: number; wallS: number }> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await tracker.followerRound();
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  return { cpuS: (used.user + used.system) / 1e6, peakRss, wallS: (performance.now() - started) / 1000 };
}

async function run(dir: string, name: string, subjects: number, followers: number) {
  const config = createConfig({
    DATABASE_URL: `file:${join(dir, `${name}.db`)}`,
    KEY_HASH_SECRET: 'bench-key-hash-secret-0123456789abcdefghijklmnop',
  });
  const view = await appView(subjects, followers);
  const store = await openStore(config.databaseUrl);
  await seed(store, view.dids);
  const tracker = new Tracker({
    store,
    clients: [createBlueskyClient({ baseUrl: view.url })],
    clock: systemClock,
    settings: trackerSettings(config),
    logger: createLogger('warn'),
  });
  global.gc?.();
  const idle = process.memoryUsage().rss;
  const result = await measure(tracker);
  const rows = await store.db
    .selectFrom('followers')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  await tracker.stop(0);
  await store.close();
  view.stop();
  return { ...result, aboveIdle: result.peakRss - idle, rows: Number(rows.n) };
}

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-followers-'));
const verdicts: Verdict[] = [];
try {
  heading(`One account with ${fmt.int(FOLLOWERS)} followers: a full pass and its close`);
  const one = await run(dir, 'one', 1, FOLLOWERS);
  figure('followers stored', fmt.int(one.rows));
  figure('wall time', `${one.wallS.toFixed(1)} s`);
  verdicts.push(target('perch CPU', `${one.cpuS.toFixed(1)} s`, '≤ 20 s', one.cpuS <= 20));
  verdicts.push(
    target('peak RSS above idle', `${(one.aboveIdle / MIB).toFixed(0)} MiB`, '≤ 100 MiB', one.aboveIdle <= 100 * MIB),
  );

  heading(`${fmt.int(MANY)} accounts with 1,000 followers each`);
  const many = await run(dir, 'many', MANY, 1_000);
  figure('followers stored', fmt.int(many.rows));
  figure('wall time', `${many.wallS.toFixed(1)} s`);
  figure('perch CPU', `${many.cpuS.toFixed(1)} s`);
  figure('peak RSS above idle', `${(many.aboveIdle / MIB).toFixed(0)} MiB`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
summary(verdicts);
