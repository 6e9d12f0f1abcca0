// The thread a large import into a SQLite file is written on (import-off-thread.ts starts it and
// sends it the rows as they are planned): it sorts them in runs as they come (key-runs.ts) and
// merges them when asked `sort` (before the caller holds any connection), then on its own connection to the file runs the import's one transaction with the same code as the event
// loop would (writePlan, inTransactionOnce). SQLite's COMMIT of a million rows re-reads
// the write-ahead log to rewrite its checksums and took 150–300 ms; here that holds nothing up.
import type { MessagePort } from 'node:worker_threads';
import type { CsvImportPlan, ImportRow } from '../domain/csv-import.ts';
import { PerchError } from '../domain/errors.ts';
import { KeyRuns, sortKey } from '../storage/key-runs.ts';
import { openSqliteWriter, sqliteCapabilities, type SqliteFile } from '../storage/dialects/sqlite.ts';
import { answerMessages } from '../worker-thread.ts';
import { inTransactionOnce, type Once, type Outcome } from './idempotency.ts';
import { rowsFromText } from './import-rows-text.ts';
import { writePlan, type ImportReport } from './import-write.ts';

/** What the thread needs besides the rows: the file, the plan's figures, and the import's context. */
export interface ImportWriteJob {
  file: SqliteFile;
  plan: Omit<CsvImportPlan, 'rows'>;
  once: Once | null;
  sealKey: Uint8Array;
  actor: string | null;
  source: string;
  /** The caller's clock (ms), which the caller keeps current while the thread writes (Atomics). */
  clock: BigInt64Array<SharedArrayBuffer>;
  /** Hears `[written, total]` as the rows are written. */
  progress: MessagePort;
}

/** An error thrown on the thread, as the caller re-throws it (a PerchError, or a driver error with its code). */
export interface ThreadError {
  message: string;
  code: string | null;
  perch: boolean;
  extensions: Record<string, unknown> | null;
}

/**
 * `rows`: the next piece of the plan's rows, as import-rows-text.ts writes them; `sort`: put the
 * rows received in key order (answered with how many); `write`: write them, once sorted.
 */
export type ImportWriteMessage = { rows: string } | { sort: true } | { write: ImportWriteJob };
export type ImportWriteAnswer =
  { ok: true; outcome: Outcome<ImportReport> } | { ok: false; error: ThreadError } | { sorted: number };

let rows: ImportRow[] = [];
const runs = new KeyRuns();
/** The rows in the unique index's order, as key-order.ts puts them on the event loop's side. */
let ordered: ImportRow[] | null = null;

function sort(): { sorted: number } {
  const order = runs.positions();
  ordered = new Array<ImportRow>(order.length);
  for (let i = 0; i < order.length; i += 1) ordered[i] = rows[order[i] ?? 0] as ImportRow;
  rows = [];
  return { sorted: ordered.length };
}

async function write(job: ImportWriteJob, ordered: ImportRow[]): Promise<ImportWriteAnswer> {
  const db = openSqliteWriter(job.file);
  const clock = { now: () => Number(Atomics.load(job.clock, 0)) };
  const sealKey = Buffer.from(job.sealKey.buffer, job.sealKey.byteOffset, job.sealKey.byteLength);
  const plan = { ...job.plan, rows: ordered };
  const options = {
    actor: job.actor,
    source: job.source,
    clock,
    onProgress: (written: number, total: number) => job.progress.postMessage([written, total]),
  };
  try {
    const outcome = await inTransactionOnce(
      { store: { db, caps: sqliteCapabilities }, clock, sealKey },
      job.once,
      200,
      (trx) => writePlan(trx, sqliteCapabilities, plan, ordered, options),
    );
    return { ok: true, outcome };
  } catch (error) {
    return { ok: false, error: threadError(error) };
  } finally {
    job.progress.close();
    await db.destroy();
  }
}

function threadError(error: unknown): ThreadError {
  const code =
    typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
      ? error.code
      : null;
  return {
    message: error instanceof Error ? error.message : String(error),
    code,
    perch: error instanceof PerchError,
    extensions: error instanceof PerchError && error.extensions ? { ...error.extensions } : null,
  };
}

answerMessages<ImportWriteMessage, ImportWriteAnswer | null>((message) => {
  if ('rows' in message) {
    const piece = rowsFromText(message.rows);
    for (const row of piece) rows.push(row);
    runs.add(piece.map(sortKey));
    return null;
  }
  if ('sort' in message) return sort();
  if (ordered === null) throw new Error('the rows are written once sorted: ask `sort` first');
  return write(message.write, ordered);
});
