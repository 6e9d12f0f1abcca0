// Importing usernames as a use case: read the CSV into a plan, then commit it in one transaction.
// The HTTP route and the `perch import` command both go through here.
import type { Kysely } from 'kysely';
import { parseUsernameCsv, type CsvImportPlan, type Rejection } from '../domain/csv-import.ts';
import { PerchError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Platform } from '../domain/platforms.ts';
import { writeImport, type ImportCounts } from '../storage/imports-repo.ts';
import type { Database } from '../storage/schema.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from './clock.ts';

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

/** Reads and validates the CSV; throws csv_no_usernames (with the rejected list) if nothing is usable. */
export async function planImport(source: string | AsyncIterable<string | Buffer>, limits: ImportLimits, onProgress?: (bytes: number) => void): Promise<CsvImportPlan> {
  const plan = await parseUsernameCsv(source, {
    defaultPlatform: limits.defaultPlatform,
    maxRows: limits.maxImportRows,
    maxBytes: limits.maxImportBytes,
    ...(onProgress ? { onProgress } : {}),
  });
  if (plan.rows.length === 0) {
    const detail =
      plan.received === 0
        ? 'The file holds no usernames: send CSV with one username per line, optionally under a "username" header.'
        : `None of the ${plan.received} rows holds a usable username; see "rejected".`;
    throw new PerchError('csv_no_usernames', detail, {
      extensions: { received: plan.received, rejected: plan.rejected, rejectedCount: plan.rejectedCount, rejectedTruncated: plan.rejectedTruncated, warnings: plan.warnings },
    });
  }
  return plan;
}

export interface CommitOptions {
  actor: string | null;
  source: string;
  clock: Clock;
  onProgress?: (written: number, total: number) => void;
  /** Extra writes that must commit or fail with the import (an idempotency record). */
  alsoInTransaction?: (trx: Kysely<Database>, report: ImportReport) => Promise<void>;
}

export async function commitImport(store: Store, plan: CsvImportPlan, options: CommitOptions): Promise<ImportReport> {
  const importId = newId('imp');
  const startedAt = options.clock.now();
  let report: ImportReport | undefined;
  await writeImport(store.db, store.caps, plan.rows, {
    id: importId,
    actor: options.actor,
    source: options.source,
    received: plan.received,
    duplicates: plan.duplicates,
    rejectedCount: plan.rejectedCount,
    startedAt,
    now: () => options.clock.now(),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    afterWrite: async (trx, counts) => {
      report = {
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
      await options.alsoInTransaction?.(trx, report);
    },
  });
  if (report === undefined) throw new PerchError('internal', 'import finished without a report');
  return report;
}
