// Importing usernames as a use case: read the CSV into a plan, commit it in one transaction (which
// this file opens; import-write.ts has its writes, which a large SQLite import runs on a thread of
// its own, import-off-thread.ts), and price what tracking the added accounts costs. The insert route, the
// dashboard's import and `perch import` all call importAccounts; they only wake the tracker.
import type { CsvImportPlan } from '../domain/csv-import.ts';
import { listImports, type ImportRecord } from '../storage/imports-list.ts';
import { KeyOrder } from '../storage/key-order.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { inTransactionOnce, type Once, type Outcome } from './idempotency.ts';
import { ImportWriter } from './import-off-thread.ts';
import { planImport, type ImportPlan } from './import-plan.ts';
import { writePlan, type CommitOptions, type ImportReport } from './import-write.ts';
import { estimateForImport, type ImportEstimate } from './spend.ts';

export { planImport, type ImportLimits, type ImportPlan } from './import-plan.ts';
export type { CommitOptions, ImportReport } from './import-write.ts';

/** What the import works with; the composer builds it once. */
export interface ImportDeps {
  store: Store;
  clock: Clock;
  /** The import's limits, and what its estimate reads (TRACK_INTERVAL, the rate card). */
  config: Config;
  /** Seals the answers kept for Idempotency-Key replays. */
  sealKey: Buffer;
  /** Called after an import of at least LARGE_IMPORT_ROWS rows, once it is written (a server hands its memory back). */
  afterLargeImport?: () => void;
}

/** From this many rows on, an import is large enough to leave memory worth handing back. */
export const LARGE_IMPORT_ROWS = 100_000;

/** One file to import, as an adapter received it. */
export interface ImportUpload {
  source: string | AsyncIterable<string | Buffer>;
  actor: string | null;
  /** How the file came (`multipart`, `text/csv`, `dashboard`, `cli`…), recorded with the import. */
  via: string;
  /** The Idempotency-Key identity, asked for once the file is read (its hash covers the whole file). */
  once?: () => Once | null;
  progress?: {
    read?: (bytes: number) => void;
    /** The file is read: `rows` accepted rows are about to be written. */
    planned?: (rows: number) => void;
    written?: (written: number, total: number) => void;
  };
}

export interface ImportResult {
  report: ImportReport;
  /** Accounts inserted or reactivated: the tracker has work when this is above 0. */
  added: number;
  estimate: ImportEstimate;
  /** The answer is an earlier one, given again for the same Idempotency-Key. */
  replayed: boolean;
}

/** Reads, commits and prices one file: all or nothing. */
export async function importAccounts(imports: ImportDeps, upload: ImportUpload): Promise<ImportResult> {
  const { store, clock, config } = imports;
  const { progress } = upload;
  // A large import into a SQLite file is written on a thread of its own (import-off-thread.ts).
  const writer = store.sqliteFile === null ? undefined : new ImportWriter(store.sqliteFile);
  const plan = await planImport(upload.source, config, progress?.read, writer);
  progress?.planned?.(plan.rows.length);
  const options = { actor: upload.actor, source: upload.via, clock, onProgress: progress?.written };
  let outcome: Outcome<ImportReport>;
  try {
    const once = upload.once?.() ?? null;
    // Should the write thread end before it was asked to write, the plan is written here instead.
    const offThread = writer?.started === true ? await writer.write(store, imports.sealKey, plan, once, options) : null;
    outcome = offThread ?? (await writeHere(imports, plan, once, options));
  } finally {
    writer?.abandon();
  }
  const report = outcome.body;
  if (plan.rows.length >= LARGE_IMPORT_ROWS) imports.afterLargeImport?.();
  const added = report.inserted + report.reactivated;
  return { report, added, estimate: estimateForImport(config, plan.rows, added), replayed: outcome.replayed };
}

/** The plan's writes on this thread, in the transaction inTransactionOnce opens (sorted before it opens). */
async function writeHere(
  imports: ImportDeps,
  plan: ImportPlan,
  once: Once | null,
  options: CommitOptions,
): Promise<Outcome<ImportReport>> {
  const rows = await sortedRows(plan);
  return inTransactionOnce(imports, once, 200, (trx) => writePlan(trx, imports.store.caps, plan, rows, options));
}

/** Commits the plan in one transaction, all or nothing (importAccounts without the reading and pricing). */
export async function commitImport(store: Store, plan: ImportPlan, options: CommitOptions): Promise<ImportReport> {
  const rows = await sortedRows(plan);
  return store.db.transaction().execute((trx) => writePlan(trx, store.caps, plan, rows, options));
}

/**
 * The rows in the unique index's order, sorted before the transaction opens so no lock is held
 * meanwhile. The order only makes the writes faster: if the sorting thread fails (out of memory,
 * say), the file's order will do.
 */
function sortedRows(plan: ImportPlan): Promise<CsvImportPlan['rows']> {
  return (plan.keyOrder ?? new KeyOrder()).inOrder(plan.rows).catch(() => plan.rows);
}

/** Past imports, newest first; `before` is the [createdAt, id] position of the previous page's last. */
export async function listImportPage(
  store: Store,
  limit: number,
  before?: readonly [number, string],
): Promise<ImportRecord[]> {
  return listImports(store.reader, { limit, ...(before ? { before } : {}) });
}
