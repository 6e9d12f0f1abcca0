// Bench: tracker throughput with 1, 2 and 4 `perch worker` processes on one PostgreSQL, against the
// local X server (in its own process), a tenth of the accounts with a new post each round; then 4
// workers against a rate-limited X server, whose windows they must share through the store.
// Baseline (same run): the X client alone fetching the same users by id, storing nothing.
// Run: npm run bench -- scale-tracker   (env BENCH_SCALE_ACCOUNTS, BENCH_SCALE_PROCESSES, BENCH_POSTGRES_URL)
import { availableParallelism } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { createConfig } from '../src/config.ts';
import { systemClock } from '../src/clock.ts';
import { commitImport, planImport } from '../src/services/import-accounts.ts';
import { openStore, type Store } from '../src/storage/store.ts';
import { cpuSnapshot, cpuUsed, describeCpu, type CpuGroups, type CpuUse } from './lib/cpu.ts';
import type { FakeXStats, FakeXWindow } from './lib/fake-x-child.ts';
import { startFakeXChild, type FakeXChild } from './lib/fake-x.ts';
import { freshBenchSchema } from './lib/postgres.ts';
import { startPerchCommand, type Server } from './lib/processes.ts';
import { figure, fmt, heading, summary, target, type Verdict } from './lib/report.ts';
import { clientLookupRate } from './lib/x-client-baseline.ts';

const ACCOUNTS = Number(process.env.BENCH_SCALE_ACCOUNTS ?? 30_000);
const PROCESS_COUNTS = (process.env.BENCH_SCALE_PROCESSES ?? '1,2,4').split(',').map(Number);
const POSTING_SHARE = 0.1;
const TOKEN = 'bench-x-token';
/** An idle worker looks for due work every 5 s (src/tracker/tracker.ts); a due time further out than that is read by every worker before it comes. */
const DUE_DELAY_MS = 6_500;
/** The warm-up before a round checks every WARM_UP_EVERY-th account. */
const WARM_UP_EVERY = 4;
const LIMIT = 20;
const WINDOW_MS = 5_000;
const LIMITED_WINDOWS = 4;
const LIMITED_PROCESSES = 4;
/** Enough due accounts that the lookups of every window find work (each lookup checks 100). */
const LIMITED_ACCOUNTS = LIMIT * 100 * (LIMITED_WINDOWS + 1);
/** Timeline reads per window: 1.5× what the allowed lookups bring (a tenth of 100 users each), so lookups are what binds. */
const TWEETS_LIMIT = Math.round(LIMIT * 100 * POSTING_SHARE * 1.5);
/**
 * The limited run stops this long before its last window resets, so that the next cannot open
 * (the window's lookups go as soon as it opens; on a busy machine, stopping takes a moment).
 */
const STOP_BEFORE_RESET_MS = 750;

const WORKER_ENV = {
  X_BEARER_TOKEN: TOKEN,
  BLUESKY_API_BASE_URL: 'http://127.0.0.1:9',
  X_DAILY_READ_BUDGET: '1000000000',
};

async function importNames(store: Store, url: string): Promise<void> {
  const config = createConfig({
    DATABASE_URL: url,
    KEY_HASH_SECRET: 'bench-key-hash-secret-0123456789abcdefghijklmnop',
  });
  const csv = `username\n${Array.from({ length: ACCOUNTS }, (_, i) => `user${i}`).join('\n')}\n`;
  await commitImport(store, await planImport(csv, config), { actor: 'bench', source: 'bench', clock: systemClock });
}

/** Makes every `everyNth` account (by row id) due at `at` (in the future: every idle worker wakes for it at once). */
async function makeDueAt(store: Store, at: number, everyNth = 1): Promise<void> {
  await store.db
    .updateTable('accounts')
    .set({ next_check_at: at })
    .where(sql<boolean>`id % ${everyNth} = 0`)
    .execute();
}

/** Waits until every `everyNth` account was checked at or after `since` (epoch ms, > 0); returns the first and last check of all. */
async function waitChecked(
  store: Store,
  since: number,
  everyNth = 1,
  timeoutMs = 600_000,
): Promise<{ first: number; last: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A walk of the accounts (30,000 here) twice a second; the bench's own check, not perch's.
    const left = await sql<{
      n: string;
    }>`select count(*) as n from accounts where coalesce(last_checked_at, 0) < ${since} and id % ${everyNth} = 0`.execute(
      store.db,
    );
    if (Number(left.rows[0]?.n ?? 0) === 0) break;
    if (Date.now() > deadline)
      throw new Error(`${left.rows[0]?.n} accounts still unchecked after ${timeoutMs / 1000} s`);
    await delay(500);
  }
  const row = await store.db
    .selectFrom('accounts')
    .select((eb) => [eb.fn.min('last_checked_at').as('first'), eb.fn.max('last_checked_at').as('last')])
    .executeTakeFirstOrThrow();
  return { first: Number(row.first), last: Number(row.last) };
}

interface RoundResult {
  processes: number;
  /** CPU used from the due time until the round was seen finished. */
  cpu: CpuUse;
  rate: number;
  seconds: number;
  firstCheckMs: number;
  split: number[];
  stats: FakeXStats;
}

/** Worker processes of the run; stopped with SIGTERM (they release their leases and exit). */
class Workers {
  readonly list: Server[] = [];
  constructor(
    private readonly url: string,
    private readonly fake: FakeXChild,
  ) {}

  /** Starts or stops workers until `count` run. */
  async scaleTo(count: number): Promise<void> {
    if (this.list.length > count) await this.stopAll();
    const started = await Promise.all(
      Array.from({ length: count - this.list.length }, () =>
        startPerchCommand('worker', this.url, { ...WORKER_ENV, X_API_BASE_URL: this.fake.url }),
      ),
    );
    this.list.push(...started);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.list.map((worker) => worker.stop()));
    this.list.length = 0;
  }

  /** Accounts each worker has checked since it started (perch_account_checks_total on its /metrics). */
  checks(): Promise<number[]> {
    return Promise.all(
      this.list.map(async (worker) => {
        const text = await (await fetch(`${worker.url}/metrics`)).text();
        let sum = 0;
        for (const line of text.split('\n'))
          if (line.startsWith('perch_account_checks_total{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
        return sum;
      }),
    );
  }
}

/**
 * One unlimited round with `processes` workers: every account due at once, 10% with a new post.
 * Workers that just started get a warm-up first (a quarter of the accounts, not measured), so that
 * the round does not pay for their JIT and their new connections. Each round rewrites every
 * account row several times (claim, check, due again); the dead rows are vacuumed before the
 * measured round, so that a later round (more processes) does not find a more bloated table.
 */
async function round(store: Store, fake: FakeXChild, workers: Workers, processes: number): Promise<RoundResult> {
  await workers.scaleTo(processes);
  await fake.ask({ type: 'post', fraction: POSTING_SHARE });
  const warmUp = Date.now();
  await makeDueAt(store, warmUp, WARM_UP_EVERY);
  await waitChecked(store, warmUp, WARM_UP_EVERY);
  await sql`vacuum analyze`.execute(store.db);
  await fake.ask({ type: 'post', fraction: POSTING_SHARE });
  await fake.ask({ type: 'reset' });
  const before = await workers.checks();
  const dueAt = Date.now() + DUE_DELAY_MS;
  await makeDueAt(store, dueAt);
  const groups: CpuGroups = {
    workers: workers.list.map((w) => w.pid),
    PostgreSQL: { command: 'postgres' },
    'local X': [fake.child.pid ?? 0],
    bench: [process.pid],
  };
  await delay(dueAt - Date.now());
  const cpuBefore = await cpuSnapshot(groups);
  const { first, last } = await waitChecked(store, dueAt);
  const cpu = cpuUsed(cpuBefore, await cpuSnapshot(groups));
  const after = await workers.checks();
  const stats = await fake.stats();
  // From the moment every account became due to the last check written.
  const seconds = (last - dueAt) / 1000;
  return {
    processes,
    cpu,
    rate: ACCOUNTS / seconds,
    seconds,
    firstCheckMs: first - dueAt,
    split: after.map((n, i) => n - (before[i] ?? 0)),
    stats,
  };
}

/** 4 workers against the limited server, from the first lookup until just before the last of LIMITED_WINDOWS windows resets. */
async function rateLimitedRun(
  store: Store,
  fake: FakeXChild,
  workers: Workers,
): Promise<{ stats: FakeXStats; split: number[] }> {
  await workers.stopAll();
  // The unlimited rounds left their (unreachable) windows in the store; the limited server starts afresh.
  await store.db.deleteFrom('rate_windows').execute();
  await fake.ask({ type: 'limit', limit: LIMIT, windowMs: WINDOW_MS, tweets: TWEETS_LIMIT });
  await fake.ask({ type: 'post', fraction: POSTING_SHARE });
  await fake.ask({ type: 'reset' });
  await workers.scaleTo(LIMITED_PROCESSES);
  const before = await workers.checks();
  await makeDueAt(store, Date.now() + DUE_DELAY_MS);
  const deadline = Date.now() + DUE_DELAY_MS + LIMITED_WINDOWS * 3 * WINDOW_MS;
  let windows: FakeXWindow[] = [];
  while (windows.length < LIMITED_WINDOWS) {
    if (Date.now() > deadline) throw new Error(`only ${windows.length} lookup windows opened in time`);
    await delay(200);
    windows = (await fake.stats()).windows.users;
  }
  await delay(Math.max(0, (windows[LIMITED_WINDOWS - 1]?.resetAt ?? 0) - STOP_BEFORE_RESET_MS - Date.now()));
  const split = (await workers.checks()).map((n, i) => n - (before[i] ?? 0));
  await workers.stopAll();
  return { stats: await fake.stats(), split };
}

const schema = await freshBenchSchema('bench_scale_tracker');
if ('unreachable' in schema) {
  heading(`skipped: no usable PostgreSQL (${schema.unreachable}); set BENCH_POSTGRES_URL`);
  process.exit(0);
}
// Ctrl-C or a timeout: the schema must not stay behind (the children get the signal too and stop).
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void schema.drop().finally(() => process.exit(130)));
const verdicts: Verdict[] = [];
const fake = await startFakeXChild(ACCOUNTS);
const store = await openStore(schema.url, { poolSize: 2 });
const workers = new Workers(schema.url, fake);
try {
  heading(
    `${fmt.int(ACCOUNTS)} X accounts on PostgreSQL (schema ${schema.schema}), ${POSTING_SHARE * 100}% with a new post each round; worker processes: ${PROCESS_COUNTS.join(', ')}`,
  );
  await importNames(store, schema.url);
  await workers.scaleTo(1);
  const resolveStarted = Date.now();
  const resolved = await waitChecked(store, 1); // every account checked once
  figure(
    'first round, 1 worker (resolve names)',
    `${fmt.int(ACCOUNTS / ((resolved.last - resolveStarted) / 1000))}/s`,
    'lookups by name, not measured',
  );

  const rounds: RoundResult[] = [];
  for (const processes of PROCESS_COUNTS) rounds.push(await round(store, fake, workers, processes));
  await workers.stopAll();

  const ids = (await store.db.selectFrom('accounts').select('platform_user_id').execute()).map(
    (r) => r.platform_user_id ?? '',
  );
  // The client alone takes well under a second here: the median of 3 runs.
  const baselines: number[] = [];
  for (let i = 0; i < 3; i += 1) baselines.push(await clientLookupRate(fake.url, TOKEN, ids));
  const baseline = baselines.sort((a, b) => a - b)[1] ?? 0;

  const one = rounds.find((r) => r.processes === 1)?.rate ?? rounds[0]?.rate ?? 1;
  for (const r of rounds) {
    figure(
      `${r.processes} worker process${r.processes === 1 ? '' : 'es'}`,
      `${fmt.int(r.rate)}/s`,
      `${fmt.ratio(r.rate / one)} of 1 process, ${fmt.ratio(r.rate / baseline)} of the client alone; round ${r.seconds.toFixed(2)} s (first check +${r.firstCheckMs} ms)`,
    );
    figure(
      '',
      '',
      `checks per process ${r.split.map(fmt.int).join(' / ')}; ${fmt.int(r.stats.lookupOk)} lookups, ${fmt.int(r.stats.timelineRequests)} timeline reads`,
    );
    figure('', '', describeCpu(r.cpu, availableParallelism()));
  }
  figure(
    'refreshes/s by processes',
    rounds.map((r) => `${r.processes}: ${fmt.int(r.rate)}`).join('   '),
    `growth ${rounds.map((r) => fmt.ratio(r.rate / one)).join(' / ')}`,
  );
  figure(
    'baseline: X client alone, lookups by id',
    `${fmt.int(baseline)}/s`,
    `4 requests in flight, no storage, no timelines (median of ${baselines.map(fmt.int).join(', ')})`,
  );
  const twice = rounds.reduce((n, r) => n + r.stats.usersLookedUp.more, 0);
  const never = rounds.reduce((n, r) => n + r.stats.usersLookedUp.never, 0);
  verdicts.push(target('accounts looked up twice in a round', fmt.int(twice), '0', twice === 0));
  verdicts.push(target('accounts not looked up in a round', fmt.int(never), '0', never === 0));

  if (ACCOUNTS < LIMITED_ACCOUNTS) {
    heading(
      `Rate-limited run skipped: it needs at least ${fmt.int(LIMITED_ACCOUNTS)} accounts (more than ${LIMITED_WINDOWS} windows of lookups)`,
    );
  } else {
    heading(
      `Rate-limited local X: ${LIMIT} lookups and ${TWEETS_LIMIT} timeline reads per ${WINDOW_MS / 1000} s window, ${LIMITED_PROCESSES} workers, ${LIMITED_WINDOWS} lookup windows`,
    );
    const { stats, split } = await rateLimitedRun(store, fake, workers);
    const windows = [...stats.windows.users, ...stats.windows.usersBy];
    const allowed = LIMIT * windows.length;
    const used = windows.reduce((n, w) => n + w.ok, 0);
    figure(
      'lookups allowed in the run',
      fmt.int(allowed),
      `${LIMIT} × ${windows.length} windows; answered per window: ${windows.map((w) => w.ok).join(', ')}`,
    );
    figure('checks per process', split.map(fmt.int).join(' / '));
    figure(
      'timeline reads (context)',
      fmt.int(stats.timelineRequests),
      `${stats.windows.tweets.length} windows of ${TWEETS_LIMIT} opened`,
    );
    verdicts.push(
      target(
        'share of allowed lookups used',
        `${((used / allowed) * 100).toFixed(1)}%`,
        '≥ 95%',
        used / allowed >= 0.95,
      ),
    );
    verdicts.push(
      target('429s caused (lookups and timelines)', fmt.int(stats.tooManyRequests), '0', stats.tooManyRequests === 0),
    );
  }
  summary(verdicts);
} finally {
  await workers.stopAll();
  await store.close();
  fake.stop();
  await schema.drop();
}
