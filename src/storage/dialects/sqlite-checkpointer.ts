// Moves the write-ahead log into the database file on a worker thread. SQLite's automatic
// checkpoint runs inside the COMMIT that crosses its threshold: after a million-row import that
// copied ~160 MB and held the event loop for ~350 ms. A PASSIVE checkpoint from another
// connection blocks neither readers nor the writer, so it can run beside the server.
// https://www.sqlite.org/wal.html#checkpointing
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
// A leaf with no imports of its own (like clock.ts): a dialect still depends on nothing else in src/.
import { every, type Every } from '../../every.ts';

const INTERVAL_MS = 5_000;

// Plain CommonJS, evaluated by the worker: no loader or build step needed on that thread.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
parentPort.on('message', (mode) => {
  try {
    const [result] = db.pragma('wal_checkpoint(' + mode + ')');
    parentPort.postMessage({ ok: true, result });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error && error.message) });
  }
});
`;

export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly timer: Every;
  private running: Promise<CheckpointResult | null> | null = null;
  private alive = true;

  constructor(path: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver }, execArgv: [] });
    this.worker.unref();
    // A failing checkpoint is retried at the next tick. If the worker itself is gone, SQLite's own
    // automatic checkpoint is the fallback (see the store), and waiting callers are released.
    this.worker.on('error', () => {});
    this.worker.once('exit', () => {
      this.alive = false;
      this.onExit?.();
    });
    this.timer = every(INTERVAL_MS, async () => {
      await this.checkpoint();
    });
  }

  /** Called once if the worker thread ends by itself. */
  onExit: (() => void) | undefined;

  /** Checkpoints now (PASSIVE), or joins the one already running; null if it could not. */
  checkpoint(): Promise<CheckpointResult | null> {
    if (!this.alive) return Promise.resolve(null);
    this.running ??= new Promise<CheckpointResult | null>((resolve) => {
      const onExit = () => resolve(null);
      this.worker.once('exit', onExit);
      this.worker.once('message', (message: { ok: boolean; result?: CheckpointResult }) => {
        this.worker.off('exit', onExit);
        resolve(message.ok ? (message.result ?? null) : null);
      });
      this.worker.postMessage('PASSIVE');
    }).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async close(): Promise<void> {
    this.onExit = undefined;
    await this.timer.stop();
    await this.running;
    await this.worker.terminate();
  }
}
