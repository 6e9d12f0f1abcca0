// Bench: idle memory of the processes a user starts, the documented way (`node dist/src/main.js …`,
// compiled, no loader), right after start, beside a bare node:http server's measured in the same run.
// Run: npm run bench -- memory   (env BENCH_MEMORY_RUNS, BENCH_MEMORY_IDLE, BENCH_POSTGRES_URL, BENCH_TMPDIR)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshBenchSchema } from './lib/postgres.ts';
import { ADMIN_KEY, KEY_HASH_SECRET, REPO_ROOT, freePort, processTree } from './lib/processes.ts';
import { figure, fmt, heading, summary, target, type Verdict } from './lib/report.ts';

const RUNS = Number(process.env.BENCH_MEMORY_RUNS ?? 3);
const IDLE_MS = Number(process.env.BENCH_MEMORY_IDLE ?? 2) * 1000;
const TARGET_MIB = 150;
/** The README's production command: the compiled entry point, run by node directly. */
const ENTRY = 'dist/src/main.js';

interface Sample {
  /** VmRSS: what `ps` and most dashboards show. */
  rss: number;
  /** Private pages only (the node binary's pages are shared by every node process on the machine). */
  privateBytes: number;
  readyMs: number;
  /** Processes in the tree measured (1 when node runs perch directly). */
  processes: number;
}

/** Bytes of one field of /proc/PID/status or smaps_rollup (given in kB). */
function procKb(file: string, field: string): number {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((text) => text.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) * 1024;
}

async function waitReady(child: ChildProcess, url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} not ready after 60 s`);
}

/** Memory of every process in the tree, summed. */
function treeMemory(pids: readonly number[]): { rss: number; privateBytes: number } {
  let rss = 0;
  let privateBytes = 0;
  for (const pid of pids) {
    try {
      rss += procKb(`/proc/${pid}/status`, 'VmRSS');
      const rollup = `/proc/${pid}/smaps_rollup`;
      privateBytes += procKb(rollup, 'Private_Clean') + procKb(rollup, 'Private_Dirty');
    } catch {
      // exited meanwhile
    }
  }
  return { rss, privateBytes };
}

/**
 * Starts `command args`, waits until it is ready and IDLE_MS more, reads the memory of its process
 * tree, and stops it: SIGTERM to the process started, then SIGKILL to whatever of its tree is left
 * after 10 s (under `npm start`, `sh` does not pass SIGTERM on to node).
 */
async function measureOnce(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  readyPath: string,
): Promise<Sample> {
  const port = await freePort();
  const { NODE_OPTIONS: _loaderOptions, ...inherited } = process.env;
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...inherited, PORT: String(port), HOST: '127.0.0.1', ...env },
  });
  let pids: number[] = [];
  try {
    await waitReady(child, `http://127.0.0.1:${port}${readyPath}`);
    const readyMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    pids = processTree(child.pid ?? 0);
    return { ...treeMemory(pids), processes: pids.length, readyMs };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    }
    for (const pid of pids.slice(1).reverse()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** The median sample (by RSS) of RUNS starts, each on a fresh store from `store()`. */
async function measure(
  command: string,
  args: readonly string[],
  store: () => Promise<{ env: Record<string, string>; drop(): Promise<void> }>,
  readyPath = '/api/health',
): Promise<Sample> {
  const samples: Sample[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const { env, drop } = await store();
    try {
      samples.push(await measureOnce(command, args, env, readyPath));
    } finally {
      await drop();
    }
  }
  samples.sort((a, b) => a.rss - b.rss);
  return samples[Math.floor((samples.length - 1) / 2)]!;
}

const describe = (sample: Sample) =>
  `${sample.processes === 1 ? '' : `${sample.processes} processes, `}private ${fmt.mib(sample.privateBytes)}, ready in ${fmt.s(sample.readyMs)}, median of ${RUNS}`;

// The bench measures what `npm install` built; a stale dist/ is rebuilt first (a no-op when current).
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error('the build failed');

const dir = await mkdtemp(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'perch-bench-memory-'));
process.once('SIGINT', () => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(130);
});
const verdicts: Verdict[] = [];
try {
  heading(
    `Idle RSS ${IDLE_MS / 1000} s after ready, empty store, LOG_LEVEL=info, output not a terminal: node ${ENTRY} …`,
  );
  const perchEnv = { ADMIN_API_KEY: ADMIN_KEY, KEY_HASH_SECRET, LOG_LEVEL: 'info' };
  /** A fresh SQLite store in its own folder (the first admin key file and the WAL go beside it). */
  const sqliteStore = async () => {
    const folder = await mkdtemp(join(dir, 'store-'));
    return {
      env: { ...perchEnv, DATABASE_URL: `file:${join(folder, 'perch.db')}` },
      drop: async () => rmSync(folder, { recursive: true, force: true }),
    };
  };

  const baseline = await measure(
    process.execPath,
    ['bench/lib/bare-http-server.mjs'],
    async () => ({ env: {}, drop: async () => {} }),
    '/',
  );
  figure('baseline: bare node:http server', fmt.mib(baseline.rss), describe(baseline));

  const serve = await measure(process.execPath, [ENTRY, 'serve'], async () => {
    const store = await sqliteStore();
    return { ...store, env: { ...store.env, TRACKER: 'off' } };
  });
  verdicts.push(
    target(
      'perch serve, TRACKER=off, SQLite',
      fmt.mib(serve.rss),
      `≤ ${TARGET_MIB} MiB`,
      serve.rss <= TARGET_MIB * 1_048_576,
    ),
  );
  figure('  beside the baseline', fmt.ratio(serve.rss / baseline.rss), describe(serve));

  const tracking = await measure(process.execPath, [ENTRY, 'serve'], sqliteStore);
  figure('perch serve, tracker on (context), SQLite', fmt.mib(tracking.rss), describe(tracking));
  // What the README advises against for a service: npm and its shell stay in the tree.
  const npmStart = await measure('npm', ['start', '--silent'], async () => {
    const store = await sqliteStore();
    return { ...store, env: { ...store.env, TRACKER: 'off' } };
  });
  figure('npm start tree, TRACKER=off (context)', fmt.mib(npmStart.rss), describe(npmStart));

  const schema = await freshBenchSchema('bench_memory');
  if ('unreachable' in schema) {
    figure('perch api, PostgreSQL', 'skipped', `no PostgreSQL: ${schema.unreachable}`);
  } else {
    await schema.drop();
    const api = await measure(process.execPath, [ENTRY, 'api'], async () => {
      const fresh = await freshBenchSchema('bench_memory');
      if ('unreachable' in fresh) throw new Error(fresh.unreachable);
      return { env: { ...perchEnv, DATABASE_URL: fresh.url }, drop: fresh.drop };
    });
    verdicts.push(
      target('perch api, PostgreSQL', fmt.mib(api.rss), `≤ ${TARGET_MIB} MiB`, api.rss <= TARGET_MIB * 1_048_576),
    );
    figure('  beside the baseline', fmt.ratio(api.rss / baseline.rss), describe(api));
  }
  summary(verdicts);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
