// Bench: one import of 1,000,000 new usernames through perch, against a raw better-sqlite3 insert;
// its peak memory; and whether the server keeps answering /api/health while an upload is imported.
// Run: npm run bench -- import   (env BENCH_IMPORT_ROWS, BENCH_TMPDIR to vary it)
import { request, Agent } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { usernameCsv } from './lib/accounts-fixture.ts';
import type { ImportChildResult } from './lib/import-child.ts';
import { ADMIN_KEY, peakRssOf, runInChild, startPerch, type Server } from './lib/processes.ts';
import { figure, fmt, heading, percentile, summary, target, type Verdict } from './lib/report.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const PROBE_EVERY_MS = 20;
const TARGET_RATIO = 3;
const TARGET_RSS = 1024 ** 3;
const TARGET_PROBE_MS = 100;

interface Probe {
  sentAt: number;
  waitMs: number;
  status: number;
}

/** GET /api/health every PROBE_EVERY_MS on its own keep-alive sockets until stopped; each probe's wait is recorded. */
function startProbes(server: Server): { stop(): Promise<Probe[]> } {
  const agent = new Agent({ keepAlive: true });
  const { hostname, port } = new URL(server.url);
  const probes: Probe[] = [];
  const pending = new Set<Promise<void>>();
  const send = () => {
    const sentAt = performance.now();
    const done = new Promise<void>((resolve) => {
      const probe = request({ host: hostname, port, path: '/api/health', agent }, (response) => {
        response.resume();
        response.on('end', () => {
          probes.push({ sentAt, waitMs: performance.now() - sentAt, status: response.statusCode ?? 0 });
          resolve();
        });
      });
      probe.on('error', () => {
        probes.push({ sentAt, waitMs: performance.now() - sentAt, status: 0 });
        resolve();
      });
      probe.end();
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  const timer = setInterval(send, PROBE_EVERY_MS);
  send();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      agent.destroy();
      return probes.sort((a, b) => a.sentAt - b.sentAt);
    },
  };
}

/** POST /api/admin/insert with the CSV as text/csv; resolves with the status and parsed report. */
function postCsv(
  server: Server,
  csv: Buffer,
): Promise<{ status: number; body: { inserted?: number } & Record<string, unknown> }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const upload = request(
      {
        host: hostname,
        port,
        path: '/api/admin/insert',
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'content-length': csv.length, 'x-api-key': ADMIN_KEY },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          try {
            resolve({
              status: response.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { inserted?: number },
            });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    upload.on('error', reject);
    upload.end(csv);
  });
}

/** When the slow probes were sent, in seconds after the upload started, e.g. "at 2.1 s (140 ms), 8.9 s (420 ms)". */
function slowSpells(probes: readonly Probe[], startedAt: number): string {
  const slow = probes.filter((p) => p.waitMs > TARGET_PROBE_MS);
  const shown = slow
    .slice(0, 8)
    .map((p) => `${((p.sentAt - startedAt) / 1000).toFixed(1)} s (${Math.round(p.waitMs)} ms)`);
  return slow.length === 0 ? '' : `sent at ${shown.join(', ')}${slow.length > shown.length ? ', …' : ''}`;
}

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-import-'));
// Ctrl-C reaches the child servers too (same process group); the temp store must not stay behind.
process.once('SIGINT', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});
const verdicts: Verdict[] = [];
let perch: Server | undefined;
try {
  heading(`Import of ${fmt.int(ROWS)} new usernames (user0000001 …), fresh SQLite store in ${dir}`);

  // 1. Time and memory, each side alone in its own process.
  const raw = await runInChild<ImportChildResult>('./import-child.ts', ['raw', String(ROWS), dir]);
  const direct = await runInChild<ImportChildResult>('./import-child.ts', ['perch', String(ROWS), dir]);
  for (const r of [raw, direct])
    if (r.inserted !== ROWS) throw new Error(`${r.mode} import inserted ${r.inserted} of ${ROWS} rows`);
  const ratio = direct.totalMs / raw.totalMs;
  figure('baseline: raw prepared insert, one transaction', fmt.s(raw.totalMs), `peak RSS ${fmt.mib(raw.maxRssBytes)}`);
  figure(
    'perch: planImport + commitImport',
    fmt.s(direct.totalMs),
    `plan (CSV) ${fmt.s(direct.planMs ?? 0)} + commit ${fmt.s(direct.commitMs ?? 0)}`,
  );
  verdicts.push(target('import time perch / baseline', fmt.ratio(ratio), `≤ ${TARGET_RATIO}×`, ratio <= TARGET_RATIO));
  verdicts.push(
    target(
      'peak RSS of the importing process',
      fmt.mib(direct.maxRssBytes),
      '≤ 1 GiB',
      direct.maxRssBytes <= TARGET_RSS,
    ),
  );
  figure('  of which before the import started', fmt.mib(direct.rssBeforeBytes), 'runtime, modules and the CSV text');

  // 2. The same import over HTTP while /api/health is probed every 20 ms. Part 1's files go first:
  // deleting them drops their unwritten pages, so no writeback of theirs competes with this part.
  for (const name of await readdir(dir)) await rm(join(dir, name), { force: true });
  perch = await startPerch(join(dir, 'http.db'));
  const csv = Buffer.from(usernameCsv(ROWS));
  const probes = startProbes(perch);
  // The prober's own event loop must stay free, or its delays would be counted as the server's.
  const ownDelay = monitorEventLoopDelay({ resolution: 5 });
  ownDelay.enable();
  await new Promise((resolve) => setTimeout(resolve, 200)); // a few probes before, as a reference
  const importStarted = performance.now();
  const answer = await postCsv(perch, csv);
  const importFinished = performance.now();
  const all = await probes.stop();
  ownDelay.disable();
  if (answer.status !== 200 || answer.body.inserted !== ROWS)
    throw new Error(`POST /api/admin/insert answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  const during = all.filter((p) => p.sentAt >= importStarted && p.sentAt <= importFinished);
  const waits = during.map((p) => p.waitMs);
  const worst = percentile(waits, 1);
  const slow = waits.filter((w) => w > TARGET_PROBE_MS).length;
  const failed = during.filter((p) => p.status !== 200).length;
  figure(
    `POST /api/admin/insert (text/csv, ${(csv.length / 1e6).toFixed(0)} MB)`,
    fmt.s(importFinished - importStarted),
    `${fmt.int(during.length)} health probes sent meanwhile, ${failed} not 200`,
  );
  figure('probe wait p50', fmt.ms(percentile(waits, 0.5)));
  verdicts.push(
    target(
      'probe wait p99',
      fmt.ms(percentile(waits, 0.99)),
      `≤ ${TARGET_PROBE_MS} ms`,
      percentile(waits, 0.99) <= TARGET_PROBE_MS,
    ),
  );
  verdicts.push(
    target('probe wait max', fmt.ms(worst), `≤ ${TARGET_PROBE_MS} ms`, worst <= TARGET_PROBE_MS && failed === 0),
  );
  figure(`probes over ${TARGET_PROBE_MS} ms`, `${slow} / ${during.length}`, slowSpells(during, importStarted));
  figure(
    "prober's own event-loop delay, max",
    fmt.ms(ownDelay.max / 1e6),
    'context: small means the waits above are the server’s',
  );
  const serverPeak = await peakRssOf(perch.pid);
  if (serverPeak !== null)
    figure('server peak RSS (VmHWM) after the HTTP import', fmt.mib(serverPeak), 'context, not the target');
  summary(verdicts);
} finally {
  await perch?.stop();
  await rm(dir, { recursive: true, force: true });
}
