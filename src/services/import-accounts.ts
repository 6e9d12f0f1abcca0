// Importing usernames as a use case: read the CSV into a plan, then commit it in one transaction,
// which this file opens. The HTTP route and the `perch import` command both go through here.
import { parseUsernameCsv, type CsvImportPlan, type Rejection } from '../domain/csv-import.ts';
import { PerchError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Platform } from '../domain/platforms.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import { recordEvents } from '../storage/events-repo.ts';
import { listImports, writeImport, type ImportCounts, type ImportRecord } from '../storage/imports-repo.ts';
import { KeyOrder } from '../storage/key-order.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';
import { importCompletedEvent } from './events.ts';
import { inTransactionOnce, type Once, type Outcome } from './idempotency.ts';

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

export interface ImportLimits {
  defaultPlatform: Platform;
  maxImportRows: number;
  maxImportBytes: number;
}

/** A plan, with its rows being put in the order they are written in meanwhile. */
export interface ImportPlan extends CsvImportPlan {
  keyOrder?: KeyOrder;
}

/** Reads and validates the CSV; throws csv_no_usernames (with the rejected list) if nothing is usable. */
export async function planImport(
  source: string | AsyncIterable<string | Buffer>,
  limits: ImportLimits,
  onProgress?: (bytes: number) => void,
): Promise<ImportPlan> {
  const keyOrder = new KeyOrder();
  const plan = await parseUsernameCsv(source, {
    defaultPlatform: limits.defaultPlatform,
    maxRows: limits.maxImportRows,
    maxBytes: limits.maxImportBytes,
    onRows: (rows) => keyOrder.feed(rows),
    ...(onProgress ? { onProgress } : {}),
  }).catch((error: unknown) => {
    keyOrder.abandon();
    throw error;
  });
  if (plan.rows.length === 0) {
    keyOrder.abandon();
    const detail =
      plan.received === 0
        ? 'The file holds no usernames: send CSV with one username per line, optionally under a "username" header.'
        : `None of the ${plan.received} rows holds a usable username; see "rejected".`;
    throw new PerchError('csv_no_usernames', detail, {
      extensions: {
        received: plan.received,
        rejected: plan.rejected,
        rejectedCount: plan.rejectedCount,
        rejectedTruncated: plan.rejectedTruncated,
        warnings: plan.warnings,
      },
    });
  }
  return { ...plan, keyOrder };
}

export interface CommitOptions {
  actor: string | null;
  source: string;
  clock: Clock;
  onProgress?: (written: number, total: number) => void;
}

/** Commits the plan in one transaction, all or nothing. */
export async function commitImport(store: Store, plan: ImportPlan, options: CommitOptions): Promise<ImportReport> {
  return (await commitImportOnce(store, plan, options, null)).body;
}

/**
 * The import transaction: opened here (through the idempotency helper, which stores the answer in
 * it when the request carried an Idempotency-Key). Every write that must commit with the import
 * goes in this function.
 */
export async function commitImportOnce(
  store: Store,
  plan: ImportPlan,
  options: CommitOptions,
  once: Once | null,
): Promise<Outcome<ImportReport>> {
  const { clock } = options;
  // Sorted before the transaction opens, so no lock is held meanwhile. The order only makes the
  // writes faster: if the sorting thread fails (out of memory, say), the file's order will do.
  const rows = await (plan.keyOrder ?? new KeyOrder()).inOrder(plan.rows).catch(() => plan.rows);
  return inTransactionOnce({ store, clock }, once, 200, async (trx) => {
    // Imports take turns: two inserting overlapping names in different orders would deadlock. One
    // that finds another being written is refused at once rather than hold a connection waiting.
    if (!(await store.caps.trySerialize(trx, 'imports')))
      throw new PerchError(
        'import_in_progress',
        'Another import is being written; send this one again when it is done.',
      );
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
  });
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
