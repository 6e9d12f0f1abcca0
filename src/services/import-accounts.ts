// Importing usernames as a use case: read the CSV into a plan, commit it in one transaction (which
// this file opens), and price what tracking the added accounts costs. The insert route, the
// dashboard's import and `perch import` all call importAccounts; they only wake the tracker.
import type { CsvImportPlan, Rejection } from '../domain/csv-import.ts';
import { PerchError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import { recordEvents } from '../storage/events-repo.ts';
import { listImports, type ImportRecord } from '../storage/imports-list.ts';
import { writeImport, type ImportCounts } from '../storage/imports-repo.ts';
import { KeyOrder } from '../storage/key-order.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { importCompletedEvent } from './events.ts';
import { inTransactionOnce, type Executor, type Once } from './idempotency.ts';
import { planImport, type ImportPlan } from './import-plan.ts';
import { estimateForImport, type ImportEstimate } from './spend.ts';

export { planImport, type ImportLimits, type ImportPlan } from './import-plan.ts';

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
  const plan = await planImport(upload.source, config, progress?.read);
  progress?.planned?.(plan.rows.length);
  const options = { actor: upload.actor, source: upload.via, clock, onProgress: progress?.written };
  const rows = await sortedRows(plan);
  const outcome = await inTransactionOnce(imports, upload.once?.() ?? null, 200, (trx) =>
    writePlan(trx, store, plan, rows, options),
  );
  const report = outcome.body;
  if (plan.rows.length >= LARGE_IMPORT_ROWS) imports.afterLargeImport?.();
  const added = report.inserted + report.reactivated;
  return { report, added, estimate: estimateForImport(config, plan.rows, added), replayed: outcome.replayed };
}

export interface ImportReport extends ImportCounts {
  success: true;
  importId: string;
  received: number;
  accepted: number;
  duplicates: number;
  rejected: Rejection[];
  rejectedCount: number;
  rejectedTruncated: boolean;
  warnings: string[];
}

export interface CommitOptions {
  actor: string | null;
  source: string;
  clock: Clock;
  onProgress?: (written: number, total: number) => void;
}

/** Commits the plan in one transaction, all or nothing (importAccounts without the reading and pricing). */
export async function commitImport(store: Store, plan: ImportPlan, options: CommitOptions): Promise<ImportReport> {
  const rows = await sortedRows(plan);
  return store.db.transaction().execute((trx) => writePlan(trx, store, plan, rows, options));
}

/**
 * The rows in the unique index's order, sorted before the transaction opens so no lock is held
 * meanwhile. The order only makes the writes faster: if the sorting thread fails (out of memory,
 * say), the file's order will do.
 */
function sortedRows(plan: ImportPlan): Promise<CsvImportPlan['rows']> {
  return (plan.keyOrder ?? new KeyOrder()).inOrder(plan.rows).catch(() => plan.rows);
}

/** The import's writes, in the one transaction its caller opened: every write that must commit with it goes here. */
async function writePlan(
  trx: Executor,
  store: Store,
  plan: ImportPlan,
  rows: CsvImportPlan['rows'],
  options: CommitOptions,
): Promise<ImportReport> {
  const { clock } = options;
  // Imports take turns: two inserting overlapping names in different orders would deadlock. One
  // that finds another being written is refused at once rather than hold a connection waiting.
  if (!(await store.caps.trySerialize(trx, 'imports')))
    throw new PerchError('import_in_progress', 'Another import is being written; send this one again when it is done.');
  const importId = newId('imp');
  const startedAt = clock.now();
  const counts = await writeImport(trx, store.caps, rows, {
    id: importId,
    actor: options.actor,
    source: options.source,
    received: plan.received,
    duplicates: plan.duplicates,
    rejectedCount: plan.rejectedCount,
    startedAt,
    now: () => clock.now(),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  await writeAudit(trx, {
    actor: options.actor,
    action: 'accounts.import',
    target: importId,
    detail: { ...counts, accepted: plan.rows.length },
    at: startedAt,
  });
  const report = reportOf(importId, plan, counts);
  await recordEvents(trx, store.caps, [importCompletedEvent(report)], clock.now());
  return report;
}

function reportOf(importId: string, plan: CsvImportPlan, counts: ImportCounts): ImportReport {
  return {
    success: true,
    importId,
    received: plan.received,
    accepted: plan.rows.length,
    ...counts,
    duplicates: plan.duplicates,
    rejected: plan.rejected,
    rejectedCount: plan.rejectedCount,
    rejectedTruncated: plan.rejectedTruncated,
    warnings: plan.warnings,
  };
}

/** Past imports, newest first; `before` is the [createdAt, id] position of the previous page's last. */
export async function listImportPage(
  store: Store,
  limit: number,
  before?: readonly [number, string],
): Promise<ImportRecord[]> {
  return listImports(store.reader, { limit, ...(before ? { before } : {}) });
}
