// The writes of one import, inside the transaction its caller opened: the accounts, the record of
// the import, its audit line and its event. import-accounts.ts runs them on the event loop; a large
// import into a SQLite file runs them on a thread of its own (import-write.worker.ts), which calls
// the same function on its own connection.
import type { CsvImportPlan, Rejection } from '../domain/csv-import.ts';
import { PerchError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import type { DialectCapabilities } from '../storage/dialects/capabilities.ts';
import { recordEvents } from '../storage/events-repo.ts';
import { writeImport, type ImportCounts } from '../storage/imports-repo.ts';
import type { Clock } from '../clock.ts';
import { importCompletedEvent } from './events.ts';
import type { Executor } from './idempotency.ts';

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

/** The import's writes, in the one transaction its caller opened: every write that must commit with it goes here. */
export async function writePlan(
  trx: Executor,
  caps: DialectCapabilities,
  plan: CsvImportPlan,
  rows: CsvImportPlan['rows'],
  options: CommitOptions,
): Promise<ImportReport> {
  const { clock } = options;
  // Imports take turns: two inserting overlapping names in different orders would deadlock. One
  // that finds another being written is refused at once rather than hold a connection waiting.
  if (!(await caps.trySerialize(trx, 'imports')))
    throw new PerchError('import_in_progress', 'Another import is being written; send this one again when it is done.');
  const importId = newId('imp');
  const startedAt = clock.now();
  const counts = await writeImport(trx, caps, rows, {
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
  await recordEvents(trx, caps, [importCompletedEvent(report)], clock.now());
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
