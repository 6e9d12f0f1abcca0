// Starting and stopping the processes a bench measures: the real perch server and the baselines.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * How every bench starts perch (Node's arguments before the sub-command): the way the README tells
 * a user to start it. When the documented command changes, change it here and nowhere else.
 */
export const PERCH_COMMAND: readonly string[] = ['dist/src/main.js'];
export const ADMIN_KEY = 'bench-admin-key-0123456789abcdefghijklmnopqrstuv';
export const KEY_HASH_SECRET = 'bench-key-hash-secret-0123456789abcdefghijklmnop';

export interface Server {
  url: string;
  /** The server's own node process (under `npm start`, the node below npm and its shell). */
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A port that was free a moment ago (the child binds it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

// Children still running when this process exits (an error, Ctrl-C) are stopped with it.
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited(child);
  clearTimeout(killer);
}

/** Polls `url` until it answers 200; fails if the child exits first or after `timeoutMs`. */
async function waitReady(child: ChildProcess, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server at ${url} not ready after ${timeoutMs} ms`);
}

/** `BENCH_CPU_PROF=DIR`: the measured processes write V8 CPU profiles there when they exit. */
function profileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir === undefined || dir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

export interface PerchOptions {
  /** Where perch's standard output (its log) goes, as a process manager would keep it; discarded without. */
  logFile?: string;
  /**
   * `npm`: started with `npm start`, the README's first command (npm, its shell and node); the
   * default is the production command, node running the compiled entry point directly.
   */
  launcher?: 'node' | 'npm';
}

/** The real app through its command line (`perch serve`), on a store at `dbPath`, tracker off, no rate limit to speak of. */
export async function startPerch(
  dbPath: string,
  env: Record<string, string> = {},
  options: PerchOptions = {},
): Promise<Server> {
  return startPerchCommand('serve', `file:${dbPath}`, env, options);
}

/**
 * `perch serve`, `perch api` or `perch worker` on the store at `databaseUrl` (a worker serves its
 * health and metrics on WORKER_PORT, which is how its readiness is seen). Tracker off, no rate
 * limit to speak of, unless `env` says otherwise.
 */
export async function startPerchCommand(
  command: 'serve' | 'api' | 'worker',
  databaseUrl: string,
  env: Record<string, string> = {},
  options: PerchOptions = {},
): Promise<Server> {
  const port = await freePort();
  const log = options.logFile === undefined ? 'ignore' : openSync(options.logFile, 'a');
  if (options.launcher === 'npm' && command !== 'serve') throw new Error('npm start runs perch serve only');
  // A profile needs node's own flags, which npm start cannot pass on (NODE_OPTIONS refuses
  // --cpu-prof): a profiled run starts node directly.
  const byNpm = options.launcher === 'npm' && profileArgs().length === 0;
  const [file, args] = byNpm ? ['npm', ['start']] : [process.execPath, [...profileArgs(), ...PERCH_COMMAND, command]];
  const { NODE_OPTIONS: _benchLoader, ...inherited } = process.env;
  const child = track(
    spawn(file, args, {
      cwd: REPO_ROOT,
      stdio: ['ignore', log, 'inherit'],
      env: {
        ...inherited,
        [command === 'worker' ? 'WORKER_PORT' : 'PORT']: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        ADMIN_API_KEY: ADMIN_KEY,
        KEY_HASH_SECRET,
        TRACKER: 'off',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_MINUTE: '100000000',
        ...env,
      },
    }),
  );
  if (typeof log === 'number') closeSync(log); // the child holds its own copy
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(child, `${url}/api/health/live`);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  if (!byNpm) return { url, pid: child.pid ?? 0, child, stop: () => stopChild(child) };
  // npm → sh → node: the server is the last process of the tree. A process manager's SIGTERM to npm
  // may not reach it (Debian's sh does not pass it on), so it is stopped directly, then npm exits.
  const server = processTree(child.pid ?? 0).at(-1) ?? 0;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const killer = setTimeout(() => {
      for (const pid of processTree(child.pid ?? 0).reverse()) signal(pid, 'SIGKILL');
    }, 10_000);
    signal(server, 'SIGTERM');
    await exited(child);
    clearTimeout(killer);
  };
  return { url, pid: server, child, stop };
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** `pid` and every process below it (npm → sh → node), parents first; a process gone meanwhile is skipped. */
export function processTree(pid: number): number[] {
  let children: number[];
  try {
    children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
  return [pid, ...children.flatMap(processTree)];
}

/** The bare node:http baseline, answering `bodyFile` to every request. */
export async function startBaseline(bodyFile: string): Promise<Server> {
  const port = await freePort();
  const child = track(
    spawn(process.execPath, [...profileArgs(), '--import', 'tsx', 'bench/lib/baseline-server.ts'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, PORT: String(port), BASELINE_BODY_FILE: bodyFile },
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(child, url);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { url, pid: child.pid ?? 0, child, stop: () => stopChild(child) };
}

/** Runs a bench/lib script in its own process and resolves with the one message it sends back. */
export async function runInChild<T>(script: string, args: readonly string[]): Promise<T> {
  const child = track(
    fork(fileURLToPath(new URL(script, import.meta.url)), args, {
      cwd: REPO_ROOT,
      execArgv: [...profileArgs(), '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  let message: T | undefined;
  child.on('message', (m) => {
    message = m as T;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0 || message === undefined) throw new Error(`${script} failed (exit code ${code})`);
  return message;
}

/** Peak resident set size of a running process, from /proc (Linux); null elsewhere. */
export async function peakRssOf(pid: number): Promise<number | null> {
  return statusBytes(pid, 'VmHWM');
}

/** Resident set sizes summed over `pid` and the processes below it; null when none could be read. */
export async function treeRssOf(pid: number): Promise<{ bytes: number; processes: number } | null> {
  const sizes = (await Promise.all(processTree(pid).map((p) => rssOf(p)))).filter((n): n is number => n !== null);
  return sizes.length === 0 ? null : { bytes: sizes.reduce((a, b) => a + b, 0), processes: sizes.length };
}

/** Resident set size of a running process now, from /proc (Linux); null elsewhere. */
export async function rssOf(pid: number): Promise<number | null> {
  return statusBytes(pid, 'VmRSS');
}

async function statusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): Promise<number | null> {
  try {
    const { readFile } = await import('node:fs/promises');
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  } catch {
    return null;
  }
}
