// Bench: GET /api/?username=NAME with an app key, 1,000,000 stored accounts, against a bare node:http baseline.
// Run: npm run bench -- read   (env BENCH_ACCOUNTS, BENCH_DURATION, BENCH_TMPDIR to vary it)
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchUsername, fillCheckedAccounts, seededRandom } from './lib/accounts-fixture.ts';
import { mergeRuns, runLoad, type LoadResult } from './lib/load.ts';
import { checkSample, createAppKey } from './lib/perch-api.ts';
import { startBaseline, startPerch, type Server } from './lib/processes.ts';
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

/**
 * Warms both servers up, then alternates measured runs (baseline, perch, baseline, perch…) so that
 * a slow spell of this shared 2-core machine does not land on one side only.
 */
async function measurePair(
  baselineServer: Server,
  perch: Server,
  paths: readonly string[],
  headers: Record<string, string>,
): Promise<{ baseline: LoadResult; perch: LoadResult }> {
  const load = (server: Server, durationS: number) =>
    runLoad({ url: server.url, paths, headers, connections: CONNECTIONS, durationS });
  await load(baselineServer, WARMUP_S);
  await load(perch, WARMUP_S);
  const baselineRuns: LoadResult[] = [];
  const perchRuns: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    baselineRuns.push(await load(baselineServer, DURATION_S / ROUNDS));
    perchRuns.push(await load(perch, DURATION_S / ROUNDS));
  }
  return { baseline: mergeRuns(baselineRuns), perch: mergeRuns(perchRuns) };
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

  const perch = await startPerch(dbPath);
  servers.push(perch);
  const apiKey = await createAppKey(perch);
  const random = seededRandom(42);
  const names = Array.from({ length: DISTINCT_NAMES }, () => benchUsername(1 + Math.floor(random() * ACCOUNTS)));
  const paths = names.map((name) => `/api/?username=${name}`);
  const sampleBody = await checkSample(perch, apiKey, names.slice(0, 100));
  const bodyFile = join(dir, 'baseline-body.json');
  await writeFile(bodyFile, sampleBody);

  const baselineServer = await startBaseline(bodyFile);
  servers.push(baselineServer);
  const { baseline, perch: measured } = await measurePair(baselineServer, perch, paths, { 'x-api-key': apiKey });
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

  const ratio = measured.requestsPerSecond / baseline.requestsPerSecond;
  const p99 = percentile(measured.latenciesMs, 0.99);
  figure('response body', `${fmt.int(Buffer.byteLength(sampleBody))} B`, 'baseline answers the same bytes');
  figure(
    'baseline node:http',
    `${fmt.int(baseline.requestsPerSecond)} req/s`,
    `p50 ${fmt.ms(percentile(baseline.latenciesMs, 0.5))}, p99 ${fmt.ms(percentile(baseline.latenciesMs, 0.99))}`,
  );
  figure(
    'perch',
    `${fmt.int(measured.requestsPerSecond)} req/s`,
    `p50 ${fmt.ms(percentile(measured.latenciesMs, 0.5))}, p99.9 ${fmt.ms(percentile(measured.latenciesMs, 0.999))}, max ${fmt.ms(percentile(measured.latenciesMs, 1))}`,
  );
  const verdicts = [
    target('throughput perch / baseline', fmt.ratio(ratio), `≥ ${TARGET_RATIO}×`, ratio >= TARGET_RATIO),
    target('perch p99 latency', fmt.ms(p99), `≤ ${TARGET_P99_MS} ms`, p99 <= TARGET_P99_MS),
    target(
      'perch non-2xx responses',
      `${measured.non2xx} / ${fmt.int(measured.latenciesMs.length)}`,
      '0',
      measured.non2xx === 0,
    ),
    target(
      'perch connection errors and timeouts',
      String(measured.errors + measured.timeouts),
      '0',
      measured.errors + measured.timeouts === 0,
    ),
  ];
  figure(
    `perch, 1 connection (${SINGLE_S} s)`,
    `p99 ${fmt.ms(percentile(single.latenciesMs, 0.99))}`,
    `p50 ${fmt.ms(percentile(single.latenciesMs, 0.5))}, ${fmt.int(single.requestsPerSecond)} req/s; context, not the target`,
  );
  if (measured.non2xx > 0) figure('perch status codes', JSON.stringify(measured.statusCodes));
  summary(verdicts);
} finally {
  for (const server of servers) await server.stop();
  await rm(dir, { recursive: true, force: true });
}
