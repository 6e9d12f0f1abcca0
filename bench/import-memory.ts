// Bench: what a big import leaves behind. perch started as the README says (`npm start`, default
// log level, a fresh store, tracker off), 1,000,000 names in random order sent through
// POST /api/admin/insert as JSON, then the read load of a client, then idle: the server's RSS at
// each step, beside a bare node:http server's measured in the same run.
// Run: npm run bench -- import-memory   (env BENCH_IMPORT_ROWS, BENCH_TMPDIR)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { benchUsernames } from './lib/accounts-fixture.ts';
import { runLoad } from './lib/load.ts';
import { ADMIN_KEY, rssOf, startBaseline, startPerch } from './lib/processes.ts';
import { figure, fmt, heading, summary, target, type Verdict } from './lib/report.ts';
import { postImport } from './lib/uploads.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const TARGET_IDLE_MIB = 300;
const IDLE_S = 30;
const MIB = 1024 * 1024;

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-import-memory-'));
const verdicts: Verdict[] = [];
heading(`what an import of ${fmt.int(ROWS)} names leaves behind (npm start, LOG_LEVEL info, tracker off)`);

const mib = (bytes: number | null) => (bytes === null ? 'gone' : `${fmt.int(Math.round(bytes / MIB))} MiB`);

/** One perch process through the import, the read load and the idle time; returns its idle RSS. */
async function measure(
  label: string,
  launcher: 'npm' | 'node',
  rows: number,
  payload: Buffer,
  paths: readonly string[],
): Promise<number> {
  await rm(join(dir, 'perch.db'), { force: true });
  for (const suffix of ['-wal', '-shm']) await rm(join(dir, `perch.db${suffix}`), { force: true });
  const perch = await startPerch(
    join(dir, 'perch.db'),
    { LOG_LEVEL: 'info' },
    { launcher, logFile: join(dir, 'perch.log') },
  );
  try {
    console.log(`  ${label}`);
    await delay(1_000);
    const started = (await rssOf(perch.pid)) ?? 0;
    figure('    started', mib(started));
    const began = performance.now();
    const answer = await postImport(perch, 'application/json', payload);
    if (answer.status !== 200 || answer.body.inserted !== rows)
      throw new Error(`import answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
    figure('    import', fmt.s(performance.now() - began), `${fmt.int(rows)} inserted`);
    figure('    right after the import', mib(await rssOf(perch.pid)));
    const load = await runLoad({
      url: perch.url,
      paths,
      headers: { 'x-api-key': ADMIN_KEY },
      connections: 50,
      durationS: 10,
    });
    figure(
      '    read load (10 s, 50 connections)',
      `${fmt.int(load.requestsPerSecond)} req/s`,
      `${load.non2xx} non-2xx`,
    );
    figure('    right after the read load', mib(await rssOf(perch.pid)));
    await delay(IDLE_S * 1000);
    const idle = (await rssOf(perch.pid)) ?? Number.POSITIVE_INFINITY;
    figure(`    after ${IDLE_S} s idle`, mib(idle), `${mib(idle - started)} above its start`);
    return idle;
  } finally {
    await perch.stop();
  }
}

try {
  const bodyFile = join(dir, 'body.json');
  await writeFile(bodyFile, '{"ok":true}');
  const baseline = await startBaseline(bodyFile);
  await delay(1_000);
  const bare = await rssOf(baseline.pid);
  await baseline.stop();
  figure('bare node:http server, idle', mib(bare), 'the floor of any node process');

  const names = benchUsernames(ROWS, 'random');
  const payload = Buffer.from(JSON.stringify({ file: `username\n${names.join('\n')}\n` }));
  const paths = names.slice(0, 100_000).map((name) => `/api/?username=${name}`);
  const idle = await measure('npm start (as the README says)', 'npm', names.length, payload, paths);
  verdicts.push(
    target(
      'idle RSS after the import and the load',
      mib(idle),
      `≤ ${TARGET_IDLE_MIB} MiB`,
      idle <= TARGET_IDLE_MIB * MIB,
    ),
  );
  summary(verdicts);
} finally {
  await rm(dir, { recursive: true, force: true });
}
