// Writing a large import into a SQLite file on a worker thread (import-write.worker.ts). The rows
// go to the thread while the file is still being read; it sorts them there (as key-order.ts would),
// before this side takes any connection, then writes them in one transaction on a connection of
// its own, while this process's writer
// connection is held: every other write of this process waits behind the import, as it did behind
// the import's transaction on that connection, and the event loop stays free, also during the
// COMMIT, which for a million rows held it for 150–300 ms (bench/README.md, 2026-12-04).
import { MessageChannel } from 'node:worker_threads';
import type { CsvImportPlan, ImportRow } from '../domain/csv-import.ts';
import { PerchError, type ErrorCode } from '../domain/errors.ts';
import { every, type Every } from '../every.ts';
import type { SqliteFile } from '../storage/dialects/sqlite.ts';
import type { Store } from '../storage/store.ts';
import { startWorker, type WorkerThread } from '../worker-thread.ts';
import type { Once, Outcome } from './idempotency.ts';
import type { CommitOptions, ImportReport } from './import-write.ts';
import { rowsToText } from './import-rows-text.ts';
import type { ImportWriteAnswer, ImportWriteMessage, ThreadError } from './import-write.worker.ts';

/** Once a plan has this many rows, its rows go to a write thread (a smaller import's COMMIT takes a few ms). */
export const OFF_THREAD_ROWS = 100_000;
/** Rows go to the thread as text (import-rows-text.ts) in pieces this large. */
const PIECE = 5_000;
/** At most this many pieces go per call of `feed`, so the rows planned before the thread started go over a few turns. */
const PIECES_PER_FEED = 4;
/** While the thread writes, the caller's clock is copied to it this often (its import's duration is as exact). */
const CLOCK_TICK_MS = 10;

type WriteThread = WorkerThread<ImportWriteMessage, ImportWriteAnswer | null>;

/**
 * For tests only (to end the thread there): `sorted` is called once the thread has sorted the rows,
 * before the writer connection is taken; `asked`, once the write was asked.
 */
export const writeThreadTestHooks: {
  sorted?: (thread: WriteThread) => void | Promise<void>;
  asked?: (thread: WriteThread) => void | Promise<void>;
} = {};

/**
 * Feeds a plan's rows to a write thread as they are planned (`feed` the growing list), once there
 * are OFF_THREAD_ROWS of them; then `write` (if `started`) or `abandon`.
 */
export class ImportWriter {
  private thread: WriteThread | null = null;
  private sent = 0;

  constructor(private readonly file: SqliteFile) {}

  get started(): boolean {
    return this.thread !== null;
  }

  feed(rows: readonly ImportRow[]): void {
    if (this.thread === null && rows.length < OFF_THREAD_ROWS) return;
    this.thread ??= startWorker(new URL('./import-write.worker.ts', import.meta.url));
    for (let n = 0; n < PIECES_PER_FEED && rows.length - this.sent >= PIECE; n += 1, this.sent += PIECE)
      this.send(rows, this.sent);
  }

  /**
   * Writes the plan on the thread, in one transaction; resolves as inTransactionOnce does, or with
   * null if the thread could not take the write (it ended, or could not sort the rows) before it
   * was asked: nothing was written, and the caller writes the plan on its own thread instead. A
   * thread that ends once asked may or may not have committed: that answers store_unavailable, and
   * the client sends the import again (with its Idempotency-Key, a replay if it had committed).
   */
  async write(
    store: Pick<Store, 'db'>,
    sealKey: Buffer,
    plan: CsvImportPlan,
    once: Once | null,
    options: CommitOptions,
  ): Promise<Outcome<ImportReport> | null> {
    const thread = this.thread;
    if (thread === null) throw new Error('no rows were sent to the write thread');
    this.thread = null;
    const { port1, port2 } = new MessageChannel();
    port1.on('message', ([written, total]: [number, number]) => options.onProgress?.(written, total));
    // The thread reads this side's clock from shared memory, kept current while it writes: its
    // timestamps are the caller's clock's (a test's stands still), as on the event loop.
    const clock = new BigInt64Array(new SharedArrayBuffer(8));
    const tick = async () => void Atomics.store(clock, 0, BigInt(Math.trunc(options.clock.now())));
    let ticker = null as Every | null;
    try {
      for (; this.sent < plan.rows.length; this.sent += PIECE) {
        this.send(plan.rows, this.sent, thread);
        await new Promise(setImmediate);
      }
      // The thread sorts before anything is held: every other write of this process would wait out the sort.
      const sorted = await thread.ask({ sort: true }).catch(() => null);
      if (sorted === null || !('sorted' in sorted) || sorted.sorted !== plan.rows.length) return null;
      await writeThreadTestHooks.sorted?.(thread);
      const { received, duplicates, rejected, rejectedCount, rejectedTruncated, warnings } = plan;
      const job = {
        file: this.file,
        plan: { received, duplicates, rejected, rejectedCount, rejectedTruncated, warnings },
        once,
        sealKey,
        actor: options.actor,
        source: options.source,
        clock,
        progress: port2,
      };
      if (!thread.alive) return null;
      // The writer connection stays held until the thread has committed (or given up).
      const answer = await store.db.connection().execute(async () => {
        // The thread may have ended while other writes held the connection.
        if (!thread.alive) return { asked: false as const };
        await tick();
        ticker = every(CLOCK_TICK_MS, tick);
        const asked = thread.ask({ write: job }, [port2]).then(
          (value) => ({ asked: true as const, value }),
          (error: unknown) => ({ asked: true as const, error }),
        );
        await writeThreadTestHooks.asked?.(thread);
        return asked;
      });
      if (!answer.asked) return null;
      if ('error' in answer) {
        if (thread.alive) throw answer.error;
        throw new PerchError(
          'store_unavailable',
          'The import was being written when its write thread ended; it may or may not be written: send it again (with the same Idempotency-Key).',
        );
      }
      const { value } = answer;
      if (value === null || !('ok' in value)) throw new Error('the import thread answered nothing');
      if (!value.ok) throw rethrown(value.error);
      return value.outcome;
    } finally {
      await ticker?.stop();
      port1.close();
      void thread.exit();
    }
  }

  abandon(): void {
    void this.thread?.exit();
    this.thread = null;
  }

  private send(rows: readonly ImportRow[], start: number, thread = this.thread): void {
    thread?.tell({ rows: rowsToText(rows, start, start + PIECE) });
  }
}

/** The thread's error as this side throws it: the same PerchError, or an Error with the driver's code. */
function rethrown({ message, code, perch, extensions }: ThreadError): Error {
  if (perch && code !== null)
    return new PerchError(code as ErrorCode, message, extensions === null ? {} : { extensions });
  return code === null ? new Error(message) : Object.assign(new Error(message), { code });
}
