// Bench: what alert rules add to a check, with 100 rules at 1,000,000 accounts (SQLite).
// A check here is the tracker's own code from a lookup's answer on: claim a batch of 100 due
// accounts under a lease, build each result (state, metrics, analysis, snapshot) and write the
// batch in one transaction with its events (save-results.ts); the platform's HTTP answer is made
// in-process, so the share measured is an upper bound of the share in a real check, which also
// reads and parses the platform's JSON. Batches with the rules enabled and disabled alternate in
// the same run (in runs of ten), so both see the same store and machine; the difference is the
// rules' cost.
// Run: npm run bench -- alerts   (env BENCH_ALERT_ACCOUNTS, BENCH_ALERT_BATCHES, BENCH_TMPDIR)
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createConfig } from '../src/config.ts';
import { checkAlertRule } from '../src/domain/alert-rules.ts';
import { createLogger } from '../src/logger.ts';
import { insertAlertRule } from '../src/storage/alert-rules-repo.ts';
import { claimDueAccounts } from '../src/storage/leases-repo.ts';
import { openStore } from '../src/storage/store.ts';
import { buildResult } from '../src/tracker/account-result.ts';
import { AlertRuleBook } from '../src/tracker/alert-rulebook.ts';
import type { TrackerContext } from '../src/tracker/context.ts';
import { trackerSettings } from '../src/tracker/create-tracker.ts';
import { saveResults } from '../src/tracker/save-results.ts';
import { loadTextModels } from '../src/tracker/text-models.ts';
import { DAY, fillCheckedAccounts, seededRandom } from './lib/accounts-fixture.ts';
import { figure, fmt, heading, summary, target } from './lib/report.ts';

const ACCOUNTS = Number(process.env.BENCH_ALERT_ACCOUNTS ?? 1_000_000);
const BATCHES = Number(process.env.BENCH_ALERT_BATCHES ?? 200);
const BATCH = 100;
const RUN = 10;
if (BATCHES % (2 * RUN) !== 0) throw new Error(`BENCH_ALERT_BATCHES must be a multiple of ${2 * RUN}`);
const TAGS = 50;
const HOUR = 3_600_000;

/** 100 rules of every scope kind and condition, so that each account is in the scope of about 40. */
function rules(random: () => number): Record<string, unknown>[] {
  const conditions = [
    { above: 10_000_000 },
    { below: 1 },
    { changePercent: 50, windowHours: 24 },
    { changePercent: -50, windowHours: 6 },
    { anomaly: { sensitivity: 3 } },
  ];
  const list: Record<string, unknown>[] = [];
  const condition = (i: number) => conditions[i % conditions.length];
  for (let i = 0; i < 40; i += 1)
    list.push({ scope: { tags: [`t${i % TAGS}`] }, metric: 'followers', condition: condition(i) });
  for (let i = 0; i < 20; i += 1) {
    const accounts = Array.from({ length: 10 }, () => `acc_${1 + Math.floor(random() * ACCOUNTS)}`);
    list.push({ scope: { accounts }, metric: 'followers', condition: condition(i) });
  }
  // Posts and following have no daily series kept: an anomaly on them reads a month of snapshots
  // per account (see bench/README.md), so the platform-wide rules here use levels and windows.
  for (let i = 0; i < 20; i += 1) list.push({ scope: { platform: 'x' }, metric: 'posts', condition: condition(i % 4) });
  for (let i = 0; i < 10; i += 1) list.push({ scope: {}, metric: 'followers', condition: condition(i) });
  for (let i = 0; i < 5; i += 1)
    list.push({ scope: { tags: ['bench'] }, metric: 'posts', condition: { quietDays: 30 } });
  for (let i = 0; i < 5; i += 1)
    list.push({ scope: { tags: ['bench'] }, metric: 'engagementRate', condition: { above: 99 } });
  return list.map((r, i) => ({ name: `bench rule ${i}`, ...r }));
}

/**
 * CPU time of this thread alone (Linux), in ms; 0 elsewhere. The process's figure also holds V8's
 * collector threads and SQLite's checkpoints on a worker, whose work lands in whichever batch runs.
 */
function mainThreadMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return 0;
  }
}
const mainCpu = { rules: 0, none: 0 };

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-alerts-'));
const dbPath = join(dir, 'perch.db');
try {
  heading(`Alert rules: 100 rules, ${fmt.int(ACCOUNTS)} accounts, ${BATCHES} batches of ${BATCH} checked`);
  const started = performance.now();
  await fillCheckedAccounts(dbPath, ACCOUNTS, { tags: (i) => ['bench', `t${i % TAGS}`] });
  const store = await openStore(`file:${dbPath}`);
  const measured = BATCHES * BATCH;
  const now0 = Date.now();
  // Every account gets one of 50 tags besides "bench"; the measured ones a month of daily follower
  // points (the anomaly's baseline) and hourly snapshots for the last day (the windows' history).
  const series = JSON.stringify(Array.from({ length: 31 }, (_, d) => [now0 - (31 - d) * DAY, 1_089 + (d % 3)]));
  await sql`update accounts set follower_series = ${series} where id <= ${measured}`.execute(store.db);
  for (let h = 1; h <= 30; h += 1)
    await sql`insert into metric_snapshots (account_id, bucket, observed_at, followers, following, posts, listed)
      select id, ${Math.floor((now0 - h * HOUR) / HOUR) * HOUR}, ${now0 - h * HOUR}, ${1_088 + (h % 3)}, 100, 1000, 0 from accounts where id <= ${measured}`.execute(
      store.db,
    );
  const random = seededRandom(27);
  for (const [i, input] of rules(random).entries()) {
    const checked = checkAlertRule(input);
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    await insertAlertRule(store.db, {
      id: `alr_bench${i}`,
      definition: checked.value,
      createdAt: now0,
      updatedAt: now0,
    });
  }
  // The preparation's writes leave the WAL long; a store at rest has had it checkpointed, and a
  // checkpoint of it during the measured batches would land in one side of the comparison.
  await sql`pragma wal_checkpoint(TRUNCATE)`.execute(store.db);
  figure('store filled and rules added (not measured)', fmt.s(performance.now() - started));

  const config = createConfig({
    DATABASE_URL: `file:${dbPath}`,
    KEY_HASH_SECRET: 'bench-key-hash-secret-0123456789abcdefghijklmnop',
  });
  const settings = trackerSettings(config);
  const textModels = await loadTextModels();
  const logger = createLogger('warn');
  const alertRules = new AlertRuleBook(logger);
  const cpu = { rules: 0, none: 0 };
  const wall = { rules: 0, none: 0 };
  let alerts = 0;
  // Past the fill's due times: every account is due; each batch claims the next 100.
  const now = now0 + HOUR;
  for (let b = 0; b < BATCHES; b += 1) {
    // Runs of ten batches with the rules on, then off: a tracker reads the rules again only when
    // they change (its rule book), which in a user's store is seldom, not at every batch.
    const withRules = Math.floor(b / RUN) % 2 === 0;
    if (b % RUN === 0) await sql`update alert_rules set enabled = ${withRules ? 1 : 0}`.execute(store.db);
    const owner = `bench-${b}`;
    const ctx = { store, owner, logger, settings, alertRules } as unknown as TrackerContext;
    const before = process.cpuUsage();
    const beforeMain = mainThreadMs();
    const t0 = performance.now();
    const claimed = await claimDueAccounts(store.db, store.caps, {
      platform: 'x',
      resolved: true,
      owner,
      now,
      leaseMs: HOUR,
      limit: BATCH,
    });
    const checked = claimed.map((account, i) => ({
      account,
      result: buildResult({
        account,
        outcome: {
          kind: 'found',
          user: {
            platformUserId: account.platformUserId ?? '',
            username: account.username,
            profile: {
              displayName: account.username,
              description: null,
              location: null,
              url: null,
              profileImageUrl: null,
              verified: false,
              protected: false,
              createdAt: null,
            },
            // One account in fifty jumps: some rules fire, as they would.
            followers: 1_090 + (i % 100 === 0 ? 5_000 : i % 3),
            following: 100,
            posts: account.postsSeenCount ?? 1_000,
            listed: 0,
          },
        },
        newPosts: undefined,
        storedPosts: [],
        now,
        settings,
        random: Math.random,
        textModels,
      }),
    }));
    const written = await saveResults(ctx, checked, now, () => {
      throw new Error('a bench write was refused');
    });
    const used = process.cpuUsage(before);
    mainCpu[withRules ? 'rules' : 'none'] += mainThreadMs() - beforeMain;
    const key = withRules ? 'rules' : 'none';
    cpu[key] += (used.user + used.system) / 1000;
    wall[key] += performance.now() - t0;
    if (written.length !== BATCH) throw new Error(`batch ${b}: ${written.length} written`);
  }
  alerts = Number(
    (await sql<{ n: number }>`select count(*) as n from events where type = 'alert.triggered'`.execute(store.db))
      .rows[0]?.n ?? 0,
  );
  await store.close();

  const half = BATCHES / 2;
  const perCheck = (ms: number) => (ms / (half * BATCH)) * 1000;
  figure(
    'check without rules (baseline), CPU per account',
    `${perCheck(cpu.none).toFixed(0)} µs`,
    `wall ${fmt.ms(wall.none / half)} per batch`,
  );
  figure(
    'check with 100 rules, CPU per account',
    `${perCheck(cpu.rules).toFixed(0)} µs`,
    `wall ${fmt.ms(wall.rules / half)} per batch`,
  );
  figure('alerts fired (one account in a hundred jumps)', fmt.int(alerts));
  if (mainCpu.none > 0)
    figure(
      'the tracker thread alone, CPU per account (without / with rules)',
      `${perCheck(mainCpu.none).toFixed(0)} / ${perCheck(mainCpu.rules).toFixed(0)} µs`,
      `share ${(((mainCpu.rules - mainCpu.none) / mainCpu.none) * 100).toFixed(1)} %`,
    );
  const share = (cpu.rules - cpu.none) / cpu.none;
  summary([target('rule evaluation, share of the check CPU', `${(share * 100).toFixed(1)} %`, '≤ 5 %', share <= 0.05)]);
} finally {
  await rm(dir, { recursive: true, force: true });
}
