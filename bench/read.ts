// Bench: GET /api/?username=NAME with an app key, 1,000,000 stored accounts, against a bare node:http baseline.
// The headline is perch as a user runs it (`npm start`, default LOG_LEVEL info, its log kept in a
// file); the same with LOG_LEVEL=silent, started by node directly, is measured beside it.
// Run: npm run bench -- read   (env BENCH_ACCOUNTS, BENCH_DURATION, BENCH_TMPDIR to vary it)
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchUsername, fillCheckedAccounts, seededRandom } from './lib/accounts-fixture.ts';
import { addCpuUse, cpuSnapshot, cpuUsed, type CpuUse } from './lib/cpu.ts';
import { mergeRuns, runLoad, type LoadResult } from './lib/load.ts';
import { checkSample, createAppKey } from './lib/perch-api.ts';
import { rssOf, startBaseline, startPerch, treeRssOf, type Server } from './lib/processes.ts';
import { figure, fmt, heading, percentile, summary, target } from './lib/report.ts';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1_000_000);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP_S = 3;
const SINGLE_S = 3;
const ROUNDS = 2; // each side's DURATION_S is split into this many alternating runs
const CONNECTIONS = 50;
const DISTINCT_NAMES = 100_000;
const TARGET_RATIO = 0.6;
const TARGET_P99_MS = 5;
const TARGET_RSS = 300 * 1_048_576;
const TARGET_SETTLE = 50 * 1_048_576;
/** Seconds idle after the load before the settled memory is read. */
const IDLE_S = 10;

interface Side {
  name: string;
  server: Server;
}

interface Measured {
  load: LoadResult;
  /** CPU of the server process during its measured runs. */
  cpu: CpuUse;
}

/**
 * Warms every server up, then alternates measured runs (baseline, perch, perch silent, baseline…)
 * so that a slow spell of this shared 2-core machine does not land on one side only.
 */
async function measureSides(
  sides: readonly Side[],
  paths: readonly string[],
  headers: Record<string, string>,
): Promise<{ measured: Map<string, Measured>; sent: Map<string, number> }> {
  const sent = new Map(sides.map((side) => [side.name, 0]));
  const load = async (side: Side, durationS: number) => {
    const result = await runLoad({ url: side.server.url, paths, headers, connections: CONNECTIONS, durationS });
    sent.set(side.name, (sent.get(side.name) ?? 0) + result.completed);
    return result;
  };
  for (const side of sides) await load(side, WARMUP_S);
  const runs = new Map<string, { loads: LoadResult[]; cpu: CpuUse[] }>(
    sides.map((side) => [side.name, { loads: [], cpu: [] }]),
  );
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const side of sides) {
      const groups = { server: [side.server.pid] };
      const before = await cpuSnapshot(groups);
      const result = await load(side, DURATION_S / ROUNDS);
      const cpu = cpuUsed(before, await cpuSnapshot(groups));
      runs.get(side.name)?.loads.push(result);
      runs.get(side.name)?.cpu.push(cpu);
    }
  }
  const measured = new Map([...runs].map(([name, r]) => [name, { load: mergeRuns(r.loads), cpu: addCpuUse(r.cpu) }]));
  return { measured, sent };
}

/** `12.3 ms CPU per 1k requests`: the server process's own CPU for what it answered. */
function cpuPerThousand(m: Measured): string {
  const seconds = m.cpu.groups.server ?? 0;
  return `${((seconds * 1000 * 1000) / Math.max(1, m.load.completed)).toFixed(1)} ms CPU per 1k requests`;
}

function latencies(m: Measured): string {
  const l = m.load.latenciesMs;
  return `p50 ${fmt.ms(percentile(l, 0.5))}, p99 ${fmt.ms(percentile(l, 0.99))}, p99.9 ${fmt.ms(percentile(l, 0.999))}, max ${fmt.ms(percentile(l, 1))}`;
}

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-read-'));
// Ctrl-C reaches the child servers too (same process group); the temp store must not stay behind.
process.once('SIGINT', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});
const servers: Server[] = [];
try {
  heading(
    `GET /api/?username=NAME   ${fmt.int(ACCOUNTS)} accounts, ${CONNECTIONS} connections, ${DURATION_S} s each in ${ROUNDS} alternating runs, after ${WARMUP_S} s warm-up`,
  );
  const dbPath = join(dir, 'perch.db');
  const fillStarted = performance.now();
  await fillCheckedAccounts(dbPath, ACCOUNTS);
  figure(
    'store filled (raw inserts, not measured)',
    fmt.s(performance.now() - fillStarted),
    `${fmt.mib((await stat(dbPath)).size)} SQLite file in ${dir}`,
  );

  // As a user runs it: `npm start`, the README's first command (npm, its shell, node), the default
  // LOG_LEVEL (info, request logging on), its output kept in a file as a process manager keeps it.
  // Only the rate limit is raised, so the load is not refused.
  const logFile = join(dir, 'perch.log');
  const perch = await startPerch(dbPath, { LOG_LEVEL: 'info' }, { logFile, launcher: 'npm' });
  servers.push(perch);
  const silent = await startPerch(dbPath, { LOG_LEVEL: 'silent' });
  servers.push(silent);
  const apiKey = await createAppKey(perch);
  const random = seededRandom(42);
  const names = Array.from({ length: DISTINCT_NAMES }, () => benchUsername(1 + Math.floor(random() * ACCOUNTS)));
  const paths = names.map((name) => `/api/?username=${name}`);
  const sampleBody = await checkSample(perch, apiKey, names.slice(0, 100));
  await checkSample(silent, apiKey, names.slice(100, 200));
  const bodyFile = join(dir, 'baseline-body.json');
  await writeFile(bodyFile, sampleBody);
  const treeOf = async () => (await treeRssOf(perch.child.pid ?? 0)) ?? { bytes: 0, processes: 0 };
  const rssBefore = (await rssOf(perch.pid)) ?? 0;
  const treeBefore = await treeOf();

  const baselineServer = await startBaseline(bodyFile);
  servers.push(baselineServer);
  const { measured, sent } = await measureSides(
    [
      { name: 'baseline', server: baselineServer },
      { name: 'perch', server: perch },
      { name: 'silent', server: silent },
    ],
    paths,
    { 'x-api-key': apiKey },
  );
  await baselineServer.stop();
  // Context for the latency target: one connection, so the p99 is the time to answer one request
  // without the queue that 50 busy connections build (with 50 in flight, mean = 50 / throughput).
  const single = await runLoad({
    url: perch.url,
    paths,
    headers: { 'x-api-key': apiKey },
    connections: 1,
    durationS: SINGLE_S,
  });
  // After the load: the same kind of request still answers correctly.
  await checkSample(perch, apiKey, names.slice(-100));
  await checkSample(silent, apiKey, names.slice(-100));
  // Memory as a user would see it in `top`: right after the load, then after IDLE_S idle.
  const rssAfter = (await rssOf(perch.pid)) ?? 0;
  const treeAfter = await treeOf();
  await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
  const rssIdle = (await rssOf(perch.pid)) ?? 0;
  const treeIdle = await treeOf();
  // Stopped the way a process manager stops it: the log is complete once it has exited.
  await perch.stop();
  const logLines = (await readFile(logFile, 'utf8')).split('\n').filter((line) => line !== '');
  const accessLines = logLines.filter((line) => line.includes('"msg":"request completed"')).length;
  // Every request this bench sent to it: the load, the single connection, the key and the samples
  // (its readiness probes come on top, and are logged too).
  const sentToPerch = (sent.get('perch') ?? 0) + single.completed + 1 + 200;

  const baseline = measured.get('baseline') as Measured;
  const main = measured.get('perch') as Measured;
  const quiet = measured.get('silent') as Measured;
  const ratio = main.load.requestsPerSecond / baseline.load.requestsPerSecond;
  const p99 = percentile(main.load.latenciesMs, 0.99);
  figure('response body', `${fmt.int(Buffer.byteLength(sampleBody))} B`, 'baseline answers the same bytes');
  figure(
    'baseline node:http',
    `${fmt.int(baseline.load.requestsPerSecond)} req/s`,
    `${latencies(baseline)}; ${cpuPerThousand(baseline)}`,
  );
  figure('perch, LOG_LEVEL info (default)', `${fmt.int(main.load.requestsPerSecond)} req/s`, latencies(main));
  figure('', '', cpuPerThousand(main));
  figure(
    'perch, LOG_LEVEL silent',
    `${fmt.int(quiet.load.requestsPerSecond)} req/s`,
    `${fmt.ratio(quiet.load.requestsPerSecond / baseline.load.requestsPerSecond)} of the baseline; ${latencies(quiet)}; ${cpuPerThousand(quiet)}`,
  );
  figure(
    'log written by perch (info)',
    `${fmt.int(logLines.length)} lines`,
    `${fmt.int(accessLines)} access lines for ${fmt.int(sentToPerch)} requests sent (and the readiness probes)`,
  );
  const verdicts = [
    target('throughput perch / baseline', fmt.ratio(ratio), `≥ ${TARGET_RATIO}×`, ratio >= TARGET_RATIO),
    target('perch p99 latency', fmt.ms(p99), `≤ ${TARGET_P99_MS} ms`, p99 <= TARGET_P99_MS),
  ];
  for (const [label, m] of [
    ['perch', main],
    ['perch silent', quiet],
  ] as const) {
    verdicts.push(
      target(
        `${label} non-2xx / errors / timeouts`,
        `${m.load.non2xx} / ${m.load.errors} / ${m.load.timeouts}`,
        '0',
        m.load.non2xx + m.load.errors + m.load.timeouts === 0,
      ),
    );
    if (m.load.non2xx > 0) figure(`${label} status codes`, JSON.stringify(m.load.statusCodes));
  }
  verdicts.push(
    target(
      'access lines per request sent (info)',
      (accessLines / sentToPerch).toFixed(2),
      '≥ 1',
      accessLines >= sentToPerch,
    ),
  );
  const change = (now: number, then: number) => `${now >= then ? '+' : '−'}${fmt.mib(Math.abs(now - then))}`;
  figure(
    'npm start tree RSS before the load',
    fmt.mib(treeBefore.bytes),
    `${treeBefore.processes} processes, started, key made, 100 requests answered`,
  );
  verdicts.push(
    target(
      'npm start tree RSS right after the load',
      fmt.mib(treeAfter.bytes),
      '≤ 300 MiB',
      treeAfter.bytes > 0 && treeAfter.bytes <= TARGET_RSS,
    ),
  );
  verdicts.push(
    target(
      `npm start tree RSS after ${IDLE_S} s idle`,
      `${fmt.mib(treeIdle.bytes)} (${change(treeIdle.bytes, treeBefore.bytes)})`,
      '≤ +50 MiB',
      treeIdle.bytes > 0 && treeIdle.bytes - treeBefore.bytes <= TARGET_SETTLE,
    ),
  );
  figure(
    'its node process alone: before / after / idle',
    `${fmt.mib(rssBefore)} / ${fmt.mib(rssAfter)} / ${fmt.mib(rssIdle)}`,
    `what the production command (node directly) holds; ${change(rssIdle, rssBefore)} after idle`,
  );
  figure(
    `perch, 1 connection (${SINGLE_S} s)`,
    `p99 ${fmt.ms(percentile(single.latenciesMs, 0.99))}`,
    `p50 ${fmt.ms(percentile(single.latenciesMs, 0.5))}, ${fmt.int(single.requestsPerSecond)} req/s; context, not the target`,
  );
  summary(verdicts);
} finally {
  for (const server of servers) await server.stop();
  await rm(dir, { recursive: true, force: true });
}
