// Puts an import's rows in the order of the accounts' unique index (platform, username_key) before
// they are written. Real exports come in any order; inserted that way, every row lands on another
// page of the name indexes, and a million random names took three times as long to write as the
// same names sorted (bench/README.md). Sorting a million names takes seconds of CPU, so large
// imports are sorted on a worker thread, in pieces while the file is still being read, and the
// server keeps answering meanwhile.
import { Worker } from 'node:worker_threads';

/** Below this many rows the sort runs here: it takes a few milliseconds. */
const SORT_HERE_BELOW = 20_000;
/** Rows go to the worker in pieces this large, each sorted there as it arrives. */
const PIECE = 50_000;

interface Keyed {
  platform: string;
  key: string;
}

// Plain CommonJS, evaluated by the worker: no loader or build step needed on that thread. Each
// piece arrives as newline-joined keys and is sorted into a run; 'done' merges the runs and
// answers with the rows' positions in key order. A key carries its position after a tab, which
// sorts below every character a key may hold: keys are distinct, so the default string sort
// (far faster than one with a comparator) orders them, and the position is read back after.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const runs = [];
let next = 0;
const merge = (a, b) => {
  const out = new Array(a.length + b.length);
  let i = 0, j = 0, k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i] < b[j] ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
};
parentPort.on('message', (message) => {
  if (typeof message === 'string') {
    const keys = message.split('\\n');
    for (let i = 0; i < keys.length; i += 1) keys[i] += '\\t' + (next + i);
    next += keys.length;
    runs.push(keys.sort());
    return;
  }
  while (runs.length > 1) {
    const merged = [];
    for (let i = 0; i < runs.length; i += 2) merged.push(i + 1 < runs.length ? merge(runs[i], runs[i + 1]) : runs[i]);
    runs.splice(0, runs.length, ...merged);
  }
  const keys = runs[0] || [];
  const order = new Uint32Array(keys.length);
  for (let i = 0; i < keys.length; i += 1) order[i] = Number(keys[i].slice(keys[i].lastIndexOf('\\t') + 1));
  parentPort.postMessage(order, [order.buffer]);
});
`;

// A space sorts below every character of a key, so "platform key" strings sort as (platform, key)
// pairs; keys never hold a line break, which separates them on the way over.
const sortKey = (row: Keyed): string => `${row.platform} ${row.key}`;
/** The same order here, without building a string per comparison. */
const byKey = (a: Keyed, b: Keyed): number =>
  a.platform !== b.platform ? (a.platform < b.platform ? -1 : 1) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
/** Sends the piece of rows starting at `start` to the worker. */
const sendPiece = (worker: Worker, rows: readonly Keyed[], start: number): void =>
  worker.postMessage(
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
  private worker: Worker | null = null;
  private sent = 0;

  feed(rows: readonly Keyed[]): void {
    while (rows.length - this.sent >= PIECE) {
      this.worker ??= startWorker();
      sendPiece(this.worker, rows, this.sent);
      this.sent += PIECE;
    }
  }

  /** The rows in (platform, key) order: a new array, the input is left as it is. */
  async inOrder<R extends Keyed>(rows: readonly R[]): Promise<R[]> {
    if (this.worker === null && rows.length < SORT_HERE_BELOW) return [...rows].sort(byKey);
    const worker = (this.worker ??= startWorker());
    this.worker = null;
    for (let start = this.sent; start < rows.length; start += PIECE) {
      sendPiece(worker, rows, start);
      await new Promise(setImmediate);
    }
    this.sent = 0;
    const order = await new Promise<Uint32Array>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the sorting thread ended (${code})`)));
      worker.postMessage({ done: true });
    }).finally(() => void worker.terminate());
    if (order.length !== rows.length) throw new Error('the sorting thread lost rows');
    const ordered = new Array<R>(order.length);
    for (let i = 0; i < order.length; i += 1) ordered[i] = rows[order[i] ?? 0] as R;
    return ordered;
  }

  abandon(): void {
    void this.worker?.terminate();
    this.worker = null;
  }
}

function startWorker(): Worker {
  const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] });
  worker.unref(); // a sort never keeps the process alive
  worker.on('error', () => {}); // reported to the waiting import, if any
  return worker;
}
