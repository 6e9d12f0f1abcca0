// Moves the write-ahead log into the database file on a worker thread. SQLite's automatic
// checkpoint runs inside the COMMIT that crosses its threshold: after a million-row import that
// copied ~160 MB and held the event loop for ~350 ms. A PASSIVE checkpoint from another
// connection blocks neither readers nor the writer, so it can run beside the server.
// https://www.sqlite.org/wal.html#checkpointing
// Leaves with no imports of their own (like clock.ts): a dialect still depends on nothing else in src/.
import { every, type Every } from '../../every.ts';
import { startWorker, type WorkerThread } from '../../worker-thread.ts';
import type { CheckpointResult } from './sqlite-checkpoint.worker.ts';

export type { CheckpointResult } from './sqlite-checkpoint.worker.ts';

const INTERVAL_MS = 5_000;

/**
 * Checkpoints every few seconds, and when asked. The thread (sqlite-checkpoint.worker.ts) starts
 * at the first checkpoint, so a store open for a moment (a command, a test) never starts one.
 */
export class WalCheckpointer {
  private thread: WorkerThread<'checkpoint', CheckpointResult> | null = null;
  private readonly timer: Every;
  private running: Promise<CheckpointResult | null> | null = null;
  private alive = true;

  constructor(private readonly path: string) {
    this.timer = every(INTERVAL_MS, async () => {
      await this.checkpoint();
    });
  }

  /** Called once if the worker thread ends by itself: SQLite's own checkpoint is then the fallback. */
  onExit: (() => void) | undefined;

  /** Checkpoints now (PASSIVE), or joins the one already running; null if it could not. */
  checkpoint(): Promise<CheckpointResult | null> {
    if (!this.alive) return Promise.resolve(null);
    // A failing checkpoint is retried at the next tick.
    this.running ??= this.started()
      .ask('checkpoint')
      .catch(() => null)
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async close(): Promise<void> {
    this.onExit = undefined;
    await this.timer.stop();
    this.alive = false;
    await this.running;
    await this.thread?.exit();
  }

  private started(): WorkerThread<'checkpoint', CheckpointResult> {
    if (this.thread !== null) return this.thread;
    const thread = startWorker<'checkpoint', CheckpointResult>(
      new URL('./sqlite-checkpoint.worker.ts', import.meta.url),
      { workerData: { path: this.path }, unref: true },
    );
    thread.onExit = () => {
      this.alive = false;
      this.onExit?.();
    };
    this.thread = thread;
    return thread;
  }
}
