// Bench: the tracker refreshing 100,000 X accounts against the local X server (in its own process),
// a tenth of them with a new post each round; then the same against a rate-limited X server.
// Baselines (same run): the X client alone fetching the same 100,000 users by id, storing nothing;
// and the client alone reading the same users' timelines, right before and right after the first checks.
// Run: npm run bench -- tracker   (env BENCH_TRACKER_ACCOUNTS, BENCH_TMPDIR)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createBlueskyClient } from '../src/platforms/bluesky.ts';
import { createXClient } from '../src/platforms/x.ts';
import { systemClock } from '../src/clock.ts';
import { commitImport, planImport } from '../src/services/import-accounts.ts';
import { openStore, type Store } from '../src/storage/store.ts';
import { trackerSettings } from '../src/tracker/create-tracker.ts';
import { spendPlans } from '../src/limits/spend-plan.ts';
import { Tracker } from '../src/tracker/tracker.ts';
import { startFakeXChild } from './lib/fake-x.ts';
import { clientIdsOf, clientLookupRate, clientTimelineRate } from './lib/x-client-baseline.ts';
import { figure, fmt, heading, summary, target, type Verdict } from './lib/report.ts';

const ACCOUNTS = Number(process.env.BENCH_TRACKER_ACCOUNTS ?? 100_000);
const ROUNDS = 3;
const POSTING_SHARE = 0.1;
const LIMIT = 20;
const WINDOW_MS = 5_000;
const LIMITED_WINDOWS = 4;
const TOKEN = 'bench-x-token';

async function openBenchStore(
  dir: string,
  name: string,
): Promise<{ store: Store; config: ReturnType<typeof createConfig> }> {
  const config = createConfig({
    DATABASE_URL: `file:${join(dir, `${name}.db`)}`,
    KEY_HASH_SECRET: 'bench-key-hash-secret-0123456789abcdefghijklmnop',
    X_DAILY_READ_BUDGET: '1000000000',
    // X's monthly post-read cap would stop the first timeline reads of 100,000 accounts: unlimited X here.
    X_MONTHLY_POST_CAP: '1000000000000',
  });
  const store = await openStore(config.databaseUrl);
  const csv = `username\n${Array.from({ length: ACCOUNTS }, (_, i) => `user${i}`).join('\n')}\n`;
  await commitImport(store, await planImport(csv, config), { actor: 'bench', source: 'bench', clock: systemClock });
  return { store, config };
}

function tracker(store: Store, config: ReturnType<typeof createConfig>, url: string): Tracker {
  return new Tracker({
    store,
    clients: [
      createXClient({ baseUrl: url, bearerToken: TOKEN }),
      createBlueskyClient({ baseUrl: 'http://127.0.0.1:9' }),
    ],
    clock: systemClock,
    settings: trackerSettings(config),
    logger: createLogger('warn'),
    spendPlans: spendPlans(config),
  });
}

async function makeAllDue(store: Store): Promise<void> {
  await store.db.updateTable('accounts').set({ next_check_at: Date.now() }).execute();
}

const verdicts: Verdict[] = [];
const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-tracker-'));
const fake = await startFakeXChild(ACCOUNTS);
try {
  heading(`Unlimited local X: ${fmt.int(ACCOUNTS)} accounts, ${POSTING_SHARE * 100}% with a new post each round`);
  const { store, config } = await openBenchStore(dir, 'unlimited');
  const t = tracker(store, config, fake.url);
  // The user's case: every newly imported account has posted, so its first check reads its timeline too.
  await fake.ask({ type: 'post', fraction: 1 });
  // What a first check cannot go below: its own timeline read. The same users' timelines, as many
  // in flight as the tracker keeps (batches in flight × reads per batch), nothing analysed or
  // stored; measured right before and right after the first checks, so that both sides meet the
  // same machine (the mean of the two is the baseline).
  const settings = trackerSettings(config);
  const inFlight = settings.batchesInFlight * settings.postFetchesInFlight;
  const names = Array.from({ length: ACCOUNTS }, (_, i) => `user${i}`);
  const baselineIds = await clientIdsOf(fake.url, TOKEN, names);
  const readsBefore = await clientTimelineRate(fake.url, TOKEN, baselineIds, inFlight);
  await fake.ask({ type: 'reset' });
  let started = performance.now();
  let cpu = process.cpuUsage();
  const first = await t.tick();
  const firstSeconds = (performance.now() - started) / 1000;
  const firstCpu = process.cpuUsage(cpu);
  const firstRate = first.checked / firstSeconds;
  const firstStats = (await fake.ask({ type: 'stats' })).stats;
  const readsAfter = await clientTimelineRate(fake.url, TOKEN, baselineIds, inFlight);
  const readsRate = (readsBefore.rate + readsAfter.rate) / 2;
  figure(
    'first checks (resolve names, first timeline reads)',
    `${fmt.int(firstRate)}/s`,
    `${fmt.int(firstStats?.lookupOk ?? 0)} lookups, ${fmt.int(firstStats?.timelineRequests ?? 0)} timeline reads, ` +
      `${((firstCpu.user + firstCpu.system) / 1000 / Math.max(1, first.checked)).toFixed(3)} ms CPU per account in perch`,
  );
  figure(
    'baseline: X client alone, one timeline read per user',
    `${fmt.int(readsRate)}/s`,
    `before ${fmt.int(readsBefore.rate)}/s, after ${fmt.int(readsAfter.rate)}/s; ` +
      `${((readsBefore.cpuMsPerUser + readsAfter.cpuMsPerUser) / 2).toFixed(3)} ms CPU per user`,
  );
  verdicts.push(
    target(
      'first checks per second (or share of the client alone)',
      `${fmt.int(firstRate)}/s = ${fmt.ratio(firstRate / readsRate)}`,
      '≥ 5,000/s or ≥ 0.85×',
      firstRate >= 5_000 || firstRate / readsRate >= 0.85,
    ),
  );
  const ids = (await store.db.selectFrom('accounts').select('platform_user_id').execute()).map(
    (r) => r.platform_user_id ?? '',
  );
  await fake.ask({ type: 'reset' });
  const rates: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    await fake.ask({ type: 'post', fraction: POSTING_SHARE });
    await makeAllDue(store);
    started = performance.now();
    cpu = process.cpuUsage();
    const report = await t.tick();
    const used = process.cpuUsage(cpu);
    const rate = report.checked / ((performance.now() - started) / 1000);
    rates.push(rate);
    figure(
      `round ${round}: ${fmt.int(report.checked)} refreshed`,
      `${fmt.int(rate)}/s`,
      `${((used.user + used.system) / 1000 / Math.max(1, report.checked)).toFixed(3)} ms CPU per account`,
    );
  }
  const { stats } = await fake.ask({ type: 'stats' });
  const baseline = await clientLookupRate(fake.url, TOKEN, ids);
  figure('baseline: X client alone, lookups by id', `${fmt.int(baseline)}/s`, 'no storage, no timelines');
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
  verdicts.push(target('steady refreshes per second (rounds 1-3)', `${fmt.int(mean)}/s`, '≥ 10,000/s', mean >= 10_000));
  figure('share of the baseline', fmt.ratio(mean / baseline));
  const perRequest = (stats?.lookupKeys ?? 0) / Math.max(1, stats?.lookupOk ?? 1);
  figure(
    'mean usernames (ids) per lookup request',
    perRequest.toFixed(1),
    `${fmt.int(stats?.lookupOk ?? 0)} lookups, ${fmt.int(stats?.timelineRequests ?? 0)} timeline reads`,
  );
  await t.stop(0);
  await store.close();

  heading(`Rate-limited local X: ${LIMIT} lookups per ${WINDOW_MS / 1000} s window, ${LIMITED_WINDOWS} windows`);
  await fake.ask({ type: 'limit', limit: LIMIT, windowMs: WINDOW_MS });
  await fake.ask({ type: 'reset' });
  const limited = await openBenchStore(dir, 'limited');
  const lt = tracker(limited.store, limited.config, fake.url);
  lt.start();
  // The first lookup opens the first window; stop just before the last window would close.
  const opened = Date.now();
  await new Promise((resolve) => setTimeout(resolve, LIMITED_WINDOWS * WINDOW_MS - 250));
  await lt.stop(2_000);
  const limitedStats = (await fake.ask({ type: 'stats' })).stats;
  const allowed = LIMIT * LIMITED_WINDOWS;
  const used = limitedStats?.lookupOk ?? 0;
  figure(
    'lookups allowed in the run',
    fmt.int(allowed),
    `first lookup ${(limitedStats?.firstLookupAt ?? opened) - opened} ms after start`,
  );
  verdicts.push(
    target('share of allowed lookups used', `${((used / allowed) * 100).toFixed(1)}%`, '≥ 95%', used / allowed >= 0.95),
  );
  verdicts.push(
    target('429s caused', fmt.int(limitedStats?.tooManyRequests ?? 0), '0', (limitedStats?.tooManyRequests ?? 0) === 0),
  );
  await limited.store.close();
  summary(verdicts);
} finally {
  fake.stop();
  await rm(dir, { recursive: true, force: true });
}
