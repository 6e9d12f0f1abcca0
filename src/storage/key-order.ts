// Puts an import's rows in the order of the accounts' unique index (platform, username_key) before
// they are written. Real exports come in any order; inserted that way, every row lands on another
// page of the name indexes, and a million random names took three times as long to write as the
// same names sorted (bench/README.md). Sorting a million names takes seconds of CPU, so large
// imports are sorted on a worker thread, in pieces while the file is still being read, and the
// server keeps answering meanwhile.
import { startWorker, type WorkerThread } from '../worker-thread.ts';
import type { KeyOrderMessage } from './key-order.worker.ts';
import { sortKey } from './key-runs.ts';

/** Below this many rows the sort runs here: it takes a few milliseconds. */
const SORT_HERE_BELOW = 20_000;
/** Rows go to the worker in pieces this large, each sorted there as it arrives. */
const PIECE = 50_000;

interface Keyed {
  platform: string;
  key: string;
}

// "platform key" strings (key-runs.ts) sort as (platform, key) pairs; keys never hold a line break,
// which separates them on the way over.
/** The same order here, without building a string per comparison. */
const byKey = (a: Keyed, b: Keyed): number =>
  a.platform !== b.platform ? (a.platform < b.platform ? -1 : 1) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

type SortThread = WorkerThread<KeyOrderMessage, Uint32Array | null>;

/** Sends the piece of rows starting at `start` to the worker (key-order.worker.ts sorts it). */
const sendPiece = (worker: SortThread, rows: readonly Keyed[], start: number): void =>
  worker.tell(
    rows
      .slice(start, start + PIECE)
      .map(sortKey)
      .join('\n'),
  );

/**
 * Sorts rows as they are planned: `feed` the growing list of rows as often as convenient (full
 * pieces go to the worker at once), then `inOrder` with the final list. `abandon` if the import
 * fails before that, so the thread ends.
 */
export class KeyOrder {
  private worker: SortThread | null = null;
  private sent = 0;

  feed(rows: readonly Keyed[]): void {
    while (rows.length - this.sent >= PIECE) {
      this.worker ??= startSortThread();
      sendPiece(this.worker, rows, this.sent);
      this.sent += PIECE;
    }
  }

  /** The rows in (platform, key) order: a new array, the input is left as it is. */
  async inOrder<R extends Keyed>(rows: readonly R[]): Promise<R[]> {
    if (this.worker === null && rows.length < SORT_HERE_BELOW) return [...rows].sort(byKey);
    const worker = (this.worker ??= startSortThread());
    this.worker = null;
    for (let start = this.sent; start < rows.length; start += PIECE) {
      sendPiece(worker, rows, start);
      await new Promise(setImmediate);
    }
    this.sent = 0;
    const order = await worker.ask({ done: true }).finally(() => void worker.exit());
    if (order === null) throw new Error('the sorting thread did not answer with an order');
    if (order.length !== rows.length) throw new Error('the sorting thread lost rows');
    const ordered = new Array<R>(order.length);
    for (let i = 0; i < order.length; i += 1) ordered[i] = rows[order[i] ?? 0] as R;
    return ordered;
  }

  /** Ends the thread; `inOrder` may still be called after, and then sorts all rows anew. */
  abandon(): void {
    void this.worker?.exit();
    this.worker = null;
    this.sent = 0;
  }
}

// A sort never keeps the process alive; a thread that fails is reported to the waiting import, if any.
function startSortThread(): SortThread {
  return startWorker(new URL('./key-order.worker.ts', import.meta.url), { unref: true });
}
