// Bench: one import of 1,000,000 new usernames in random order (as real exports come), the way a
// user sends it (POST /api/admin/insert as JSON and as text/csv, perch started as the README says),
// against a raw better-sqlite3 insert of the same names; peak memory; whether /api/health keeps
// answering meanwhile; and the same for hostile files (one 40 MB value, a quote never closed).
// Run: npm run bench -- import   (env BENCH_IMPORT_ROWS, BENCH_TMPDIR to vary it)
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchUsernames } from './lib/accounts-fixture.ts';
import type { ImportChildResult, ImportMode } from './lib/import-child.ts';
import { peakRssOf, runInChild, startPerch, type Server } from './lib/processes.ts';
import { figure, fmt, heading, percentile, summary, target, type Verdict } from './lib/report.ts';
import { slowSpells, uploadWhileProbing, type ProbedUpload } from './lib/uploads.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const HOSTILE_BYTES = 40 * 1_000_000;
const TARGET_RATIO = 3;
const TARGET_RSS = 1024 ** 3;
const TARGET_PROBE_MS = 100;

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-import-'));
// Ctrl-C reaches the child servers too (same process group); the temp store must not stay behind.
process.once('SIGINT', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});
const verdicts: Verdict[] = [];

/** Part files are deleted between runs: their unwritten pages must not be written back during the next. */
async function emptyDir(): Promise<void> {
  for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
}

async function inChild(mode: ImportMode, order: 'random' | 'sorted'): Promise<ImportChildResult> {
  const result = await runInChild<ImportChildResult>('./import-child.ts', [mode, String(ROWS), dir, order]);
  if (result.inserted !== ROWS) throw new Error(`${mode} (${order}) inserted ${result.inserted} of ${ROWS} rows`);
  await emptyDir();
  return result;
}

/** Prints the probe figures of one upload and records their verdicts. */
function probeVerdicts(label: string, upload: ProbedUpload): void {
  const waits = upload.probes.map((p) => p.waitMs);
  const failed = upload.probes.filter((p) => p.status !== 200).length;
  const worst = percentile(waits, 1);
  figure(
    `  health probes sent meanwhile`,
    fmt.int(waits.length),
    `${failed} not 200; p50 ${fmt.ms(percentile(waits, 0.5))}`,
  );
  verdicts.push(
    target(
      `${label}: probe wait max`,
      fmt.ms(worst),
      `≤ ${TARGET_PROBE_MS} ms`,
      worst <= TARGET_PROBE_MS && failed === 0,
    ),
  );
  const spells = slowSpells(upload.probes, upload.startedAt, TARGET_PROBE_MS);
  if (spells !== '') figure('  slow probes', '', spells);
  figure(
    "  bench's own event-loop delay, max",
    fmt.ms(upload.ownDelayMaxMs),
    'small: the waits above are the server’s',
  );
}

/** A fresh `perch serve` as the README starts it (LOG_LEVEL info, its output kept in a file). */
async function freshPerch(name: string): Promise<Server> {
  return startPerch(join(dir, `${name}.db`), { LOG_LEVEL: 'info' }, { logFile: join(dir, `${name}.log`) });
}

let perch: Server | undefined;
try {
  heading(
    `Import of ${fmt.int(ROWS)} new usernames in random order (user0000001 … shuffled), fresh SQLite stores in ${dir}`,
  );

  // 1. The baseline and perch's import path alone, each in its own process.
  const raw = await inChild('raw', 'random');
  figure(
    'baseline: raw insert, table with one unique index',
    fmt.s(raw.totalMs),
    `random order; peak RSS ${fmt.mib(raw.maxRssBytes)}`,
  );
  const rawSorted = await inChild('raw', 'sorted');
  figure('  the same, names sorted (context)', fmt.s(rawSorted.totalMs));
  const rawPerch = await inChild('raw-perch', 'random');
  figure(
    "  raw insert into perch's accounts table (context)",
    fmt.s(rawPerch.totalMs),
    'random order, all its indexes',
  );
  const direct = await inChild('perch', 'random');
  figure(
    'perch: planImport + commitImport, in process',
    fmt.s(direct.totalMs),
    `${fmt.ratio(direct.totalMs / raw.totalMs)}; plan (CSV) ${fmt.s(direct.planMs ?? 0)} + commit ${fmt.s(direct.commitMs ?? 0)}`,
  );
  const kind = await inChild('perch', 'sorted');
  figure('  the same, names sorted (the kind case)', fmt.s(kind.totalMs), fmt.ratio(kind.totalMs / raw.totalMs));
  verdicts.push(
    target('peak RSS, in-process import', fmt.mib(direct.maxRssBytes), '≤ 1 GiB', direct.maxRssBytes <= TARGET_RSS),
  );

  // 2. As a user sends it: one HTTP request to a server started the documented way, per form.
  const names = benchUsernames(ROWS, 'random');
  const csv = Buffer.from(`username\n${names.join('\n')}\n`);
  const forms: [string, string, Buffer][] = [
    ['JSON {file}', 'application/json', Buffer.from(JSON.stringify({ file: csv.toString('utf8') }))],
    ['text/csv', 'text/csv', csv],
  ];
  for (const [label, contentType, payload] of forms) {
    perch = await freshPerch(label.replace(/\W+/g, '-'));
    const upload = await uploadWhileProbing(perch, contentType, payload);
    if (upload.answer.status !== 200 || upload.answer.body.inserted !== ROWS)
      throw new Error(
        `${label}: answered ${upload.answer.status}: ${JSON.stringify(upload.answer.body).slice(0, 300)}`,
      );
    const ratio = upload.ms / raw.totalMs;
    heading(`POST /api/admin/insert, ${label} (${(payload.length / 1e6).toFixed(1)} MB), LOG_LEVEL info`);
    verdicts.push(
      target(
        `${label}: time / baseline`,
        `${fmt.s(upload.ms)} = ${fmt.ratio(ratio)}`,
        `≤ ${TARGET_RATIO}×`,
        ratio <= TARGET_RATIO,
      ),
    );
    const peak = (await peakRssOf(perch.pid)) ?? 0;
    verdicts.push(
      target(`${label}: server peak RSS (VmHWM)`, fmt.mib(peak), '≤ 1 GiB', peak > 0 && peak <= TARGET_RSS),
    );
    probeVerdicts(label, upload);
    await perch.stop();
    perch = undefined;
    await emptyDir();
  }

  // 3. Hostile files: each must be refused with a 4xx while the server keeps answering.
  const hostile: [string, Buffer][] = [
    ['one unbroken 40 MB value', Buffer.alloc(HOSTILE_BYTES, 'a')],
    ['an opening quote never closed', Buffer.from(`username\n"${'alice\n'.repeat(HOSTILE_BYTES / 6)}`)],
  ];
  perch = await freshPerch('hostile');
  for (const [label, payload] of hostile) {
    const upload = await uploadWhileProbing(perch, 'text/csv', payload);
    heading(`POST /api/admin/insert, text/csv, ${label} (${(payload.length / 1e6).toFixed(0)} MB)`);
    const { status, body } = upload.answer;
    verdicts.push(target(`${label}: answer`, `${status} ${body.code ?? ''}`, '4xx', status >= 400 && status < 500));
    figure('  answered after', fmt.s(upload.ms));
    probeVerdicts(label, upload);
  }
  summary(verdicts);
} finally {
  await perch?.stop();
  await rm(dir, { recursive: true, force: true });
}
