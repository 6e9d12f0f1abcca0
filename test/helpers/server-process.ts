// Runs `perch serve`, `perch api` or `perch worker` as a real child process, for tests that kill it,
// send it signals, or run several side by side on one store. It runs the TypeScript sources through
// tsx, like the rest of the suite, so no build sits between an edit and its test; the compiled
// production start has its own test (test/cli/production-start.test.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Log lines (parsed JSON) seen so far. */
  lines: Record<string, unknown>[];
  /** Everything written to stdout so far, log lines and plain text. */
  readonly stdout: string;
  /** Resolves with the first log line matching `predicate`. */
  waitForLog(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  return startPerch('serve', env);
}

/** `perch api` (HTTP alone, no tracker), the process that scale-out runs several of. */
export async function startApi(env: Record<string, string>): Promise<ServerProcess> {
  return startPerch('api', env);
}

/** `perch worker` (the tracker alone); `url` serves its health and metrics only (WORKER_PORT). */
export async function startWorker(env: Record<string, string>): Promise<ServerProcess> {
  return startPerch('worker', env);
}

/** Generous: on a loaded 2-core CI machine a TypeScript start can take tens of seconds. */
const START_TIMEOUT_MS = 90_000;

async function startPerch(command: 'serve' | 'api' | 'worker', env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', command], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: {
      ...process.env,
      PORT: '0',
      WORKER_PORT: '0',
      LOG_LEVEL: 'info',
      TRACKER: 'off',
      BLUESKY_JETSTREAM_URL: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    predicate: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = '';
  createInterface({ input: child.stdout! }).on('line', (text) => {
    stdout += `${text}\n`;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const waitForLog = (predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = lines.find(predicate);
      if (seen) return resolve(seen);
      const timer = setTimeout(
        () => reject(new Error(`no such log line within ${timeoutMs} ms; stderr: ${stderr}`)),
        timeoutMs,
      );
      waiters.push({ predicate, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      void exited.then(() => reject(new Error(`server exited; stderr: ${stderr}`)));
    });
  let listening: Record<string, unknown>;
  try {
    if (command === 'worker') await waitForLog((line) => line.msg === 'worker started', START_TIMEOUT_MS);
    listening = await waitForLog(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at'),
      START_TIMEOUT_MS,
    );
  } catch (error) {
    // A child that did not start in time must not outlive the test (it would hold the runner open).
    child.kill('SIGKILL');
    throw error;
  }
  const url = String(listening.msg).replace('Server listening at ', '');
  return {
    child,
    url,
    lines,
    get stdout() {
      return stdout;
    },
    waitForLog,
    exited,
  };
}
