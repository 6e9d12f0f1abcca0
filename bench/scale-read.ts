// Bench: GET /api/?username=NAME with an app key on PostgreSQL, right after the accounts were
// imported (as a user reads what they just registered, before any ANALYZE), with 1 and 2
// `perch api` processes, each against as many bare node:http baseline processes, in the same run.
// Run: npm run bench -- scale-read   (env BENCH_SCALE_READ_ACCOUNTS, BENCH_SCALE_READ_DURATION, BENCH_POSTGRES_URL)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchUsername, seededRandom, usernameCsv } from './lib/accounts-fixture.ts';
import { addCpuUse, cpuSnapshot, cpuUsed, describeCpu, type CpuGroups, type CpuUse } from './lib/cpu.ts';
import { mergeRuns, runLoadSpread, type LoadResult } from './lib/load.ts';
import { checkSample, createAppKey } from './lib/perch-api.ts';
import { accountLookupPlan, freshBenchSchema } from './lib/postgres.ts';
import { ADMIN_KEY, startBaseline, startPerchCommand, type Server } from './lib/processes.ts';
import { figure, fmt, heading, percentile, summary, target, type Verdict } from './lib/report.ts';

const ACCOUNTS = Number(process.env.BENCH_SCALE_READ_ACCOUNTS ?? 200_000);
const DURATION_S = Number(process.env.BENCH_SCALE_READ_DURATION ?? 10);
const PROCESS_COUNTS = [1, 2];
const WARMUP_S = 3;
const ROUNDS = 2; // each side's DURATION_S is split into this many alternating runs
const CONNECTIONS = 50;
const DISTINCT_NAMES = Math.min(100_000, ACCOUNTS);
const TARGET_RATIO = 0.3;
const TARGET_GROWTH = 1.6;

/** The user's import: the names as a text/csv upload to POST /api/admin/insert. */
async function importNames(api: Server, count: number): Promise<void> {
  const response = await fetch(`${api.url}/api/admin/insert`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
    body: usernameCsv(count),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`the import answered ${response.status}: ${body.slice(0, 300)}`);
  const { inserted } = JSON.parse(body) as { inserted: number };
  if (inserted !== count) throw new Error(`the import inserted ${inserted} of ${count} names`);
}

interface Measured {
  processes: number;
  baseline: LoadResult;
  perch: LoadResult;
  /** CPU used during perch's measured runs. */
  cpu: CpuUse;
}

/**
 * Warms both sides up, then alternates measured runs (baseline, perch, baseline, perch), each
 * spread over `processes` servers of its kind, so that a slow spell does not land on one side only.
 */
async function measure(
  processes: number,
  baselines: readonly Server[],
  apis: readonly Server[],
  paths: readonly string[],
  headers: Record<string, string>,
): Promise<Measured> {
  const load = (servers: readonly Server[], durationS: number) =>
    runLoadSpread(
      servers.slice(0, processes).map((s) => s.url),
      { paths, headers, connections: CONNECTIONS, durationS },
    );
  const groups: CpuGroups = {
    perch: apis.slice(0, processes).map((s) => s.pid),
    PostgreSQL: { command: 'postgres' },
    'load generator': [process.pid],
  };
  await load(baselines, WARMUP_S);
  await load(apis, WARMUP_S);
  const baselineRuns: LoadResult[] = [];
  const perchRuns: LoadResult[] = [];
  const cpu: CpuUse[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    baselineRuns.push(await load(baselines, DURATION_S / ROUNDS));
    const before = await cpuSnapshot(groups);
    perchRuns.push(await load(apis, DURATION_S / ROUNDS));
    cpu.push(cpuUsed(before, await cpuSnapshot(groups)));
  }
  return { processes, baseline: mergeRuns(baselineRuns), perch: mergeRuns(perchRuns), cpu: addCpuUse(cpu) };
}

const schema = await freshBenchSchema('bench_scale_read');
if ('unreachable' in schema) {
  heading(`skipped: no usable PostgreSQL (${schema.unreachable}); set BENCH_POSTGRES_URL`);
  process.exit(0);
}
const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-scale-read-'));
// Ctrl-C or a timeout: the schema must not stay behind (the children get the signal too and stop).
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(
    signal,
    () => void Promise.all([schema.drop(), rm(dir, { recursive: true, force: true })]).finally(() => process.exit(130)),
  );
const servers: Server[] = [];
try {
  heading(
    `GET /api/?username=NAME on PostgreSQL (schema ${schema.schema}), ${fmt.int(ACCOUNTS)} accounts, ${CONNECTIONS} connections spread over the processes, ${DURATION_S} s each in ${ROUNDS} alternating runs, after ${WARMUP_S} s warm-up`,
  );
  // As a user runs them: the default LOG_LEVEL (info), each process's log kept in a file.
  const apis = await Promise.all(
    Array.from({ length: Math.max(...PROCESS_COUNTS) }, (_, i) =>
      startPerchCommand('api', schema.url, { LOG_LEVEL: 'info' }, { logFile: join(dir, `perch-api-${i + 1}.log`) }),
    ),
  );
  servers.push(...apis);
  const importStarted = performance.now();
  await importNames(apis[0] as Server, ACCOUNTS);
  figure(
    'POST /api/admin/insert of the names (not measured)',
    fmt.s(performance.now() - importStarted),
    `${fmt.int(ACCOUNTS)} new accounts, text/csv; no ANALYZE after it`,
  );
  const apiKey = await createAppKey(apis[0] as Server);
  const random = seededRandom(42);
  const names = Array.from({ length: DISTINCT_NAMES }, () => benchUsername(1 + Math.floor(random() * ACCOUNTS)));
  const paths = names.map((name) => `/api/?username=${name}`);
  const pending = { checked: false };
  const sampleBody = await checkSample(apis[0] as Server, apiKey, names.slice(0, 100), pending);
  for (const api of apis.slice(1)) await checkSample(api, apiKey, names.slice(100, 200), pending);
  // What the planner knows when the reads start: nothing, as after any import (autovacuum, when it
  // is on at all, analyses a new table a minute or more later).
  const before = await accountLookupPlan(schema.url, names[0] as string);
  const bodyFile = join(dir, 'baseline-body.json');
  await writeFile(bodyFile, sampleBody);
  const baselines = await Promise.all(apis.map(() => startBaseline(bodyFile)));
  servers.push(...baselines);

  const results: Measured[] = [];
  for (const processes of PROCESS_COUNTS)
    results.push(await measure(processes, baselines, apis, paths, { 'x-api-key': apiKey }));
  // After the load: every process still answers correctly.
  for (const api of apis) await checkSample(api, apiKey, names.slice(-100), pending);
  const after = await accountLookupPlan(schema.url, names[0] as string);

  figure('response body', `${fmt.int(Buffer.byteLength(sampleBody))} B`, 'the baselines answer the same bytes');
  figure(
    'planner statistics before / after the load',
    `${before.analysed ? 'yes' : 'none'} / ${after.analysed ? 'yes' : 'none'}`,
    `lookup plan: ${before.plan.replace(/\s+\(cost=.*$/, '')}`,
  );
  const verdicts: Verdict[] = [];
  const first = results[0] as Measured;
  for (const r of results) {
    const label = `${r.processes} process${r.processes === 1 ? '' : 'es'}`;
    const p = r.perch.latenciesMs;
    figure(
      `baseline node:http, ${label}`,
      `${fmt.int(r.baseline.requestsPerSecond)} req/s`,
      `p99 ${fmt.ms(percentile(r.baseline.latenciesMs, 0.99))}`,
    );
    figure(
      `perch api, ${label}`,
      `${fmt.int(r.perch.requestsPerSecond)} req/s`,
      `${fmt.ratio(r.perch.requestsPerSecond / r.baseline.requestsPerSecond)} of the baseline; p50 ${fmt.ms(percentile(p, 0.5))}, p99 ${fmt.ms(percentile(p, 0.99))}, p99.9 ${fmt.ms(percentile(p, 0.999))}`,
    );
    figure('', '', `perch's runs: ${describeCpu(r.cpu, availableParallelism())}`);
    verdicts.push(
      target(
        `perch non-2xx / errors, ${label}`,
        `${r.perch.non2xx} / ${r.perch.errors + r.perch.timeouts} of ${fmt.int(r.perch.completed)}`,
        '0',
        r.perch.non2xx + r.perch.errors + r.perch.timeouts === 0,
      ),
    );
    if (r.perch.non2xx > 0) figure('perch status codes', JSON.stringify(r.perch.statusCodes));
  }
  const ratio = first.perch.requestsPerSecond / first.baseline.requestsPerSecond;
  verdicts.push(target('perch / baseline, 1 process', fmt.ratio(ratio), `≥ ${TARGET_RATIO}×`, ratio >= TARGET_RATIO));
  for (const r of results.slice(1)) {
    const growth = r.perch.requestsPerSecond / first.perch.requestsPerSecond;
    verdicts.push(
      target(
        `growth, 1 → ${r.processes} processes`,
        fmt.ratio(growth),
        `≥ ${TARGET_GROWTH}× with ${r.processes} free cores`,
        growth >= TARGET_GROWTH,
      ),
    );
    figure(
      '',
      '',
      `baseline ${fmt.ratio(r.baseline.requestsPerSecond / first.baseline.requestsPerSecond)}; this machine has ${availableParallelism()} cores for perch, PostgreSQL and the load generator together`,
    );
  }
  summary(verdicts);
} finally {
  for (const server of servers) await server.stop();
  await schema.drop();
  await rm(dir, { recursive: true, force: true });
}
