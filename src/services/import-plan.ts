// Reading an import's CSV into a plan: validated rows, rejections and warnings, nothing written.
// Its rows are put in the unique index's order on a thread while the file is read (key-order.ts).
import { parseUsernameCsv, type CsvImportPlan } from '../domain/csv-import.ts';
import { PerchError } from '../domain/errors.ts';
import type { Platform } from '../domain/platforms.ts';
import { KeyOrder } from '../storage/key-order.ts';
import type { ImportWriter } from './import-off-thread.ts';

export interface ImportLimits {
  defaultPlatform: Platform;
  maxImportRows: number;
  maxImportBytes: number;
}

/** A plan, with its rows being put in the order they are written in meanwhile. */
export interface ImportPlan extends CsvImportPlan {
  keyOrder?: KeyOrder;
}

/**
 * Reads and validates the CSV; throws csv_no_usernames (with the rejected list) if nothing is
 * usable. With a `writer`, a large plan's rows go to its write thread as they are read (which
 * sorts them), instead of to a sorting thread.
 */
export async function planImport(
  source: string | AsyncIterable<string | Buffer>,
  limits: ImportLimits,
  onProgress?: (bytes: number) => void,
  writer?: ImportWriter,
): Promise<ImportPlan> {
  const keyOrder = new KeyOrder();
  const abandon = () => {
    keyOrder.abandon();
    writer?.abandon();
  };
  const plan = await parseUsernameCsv(source, {
    defaultPlatform: limits.defaultPlatform,
    maxRows: limits.maxImportRows,
    maxBytes: limits.maxImportBytes,
    onRows: (rows) => {
      writer?.feed(rows);
      // Once the write thread has the rows, it sorts them: the sorting thread (if any) goes.
      if (writer?.started === true) keyOrder.abandon();
      else keyOrder.feed(rows);
    },
    ...(onProgress ? { onProgress } : {}),
  }).catch((error: unknown) => {
    abandon();
    throw error;
  });
  if (plan.rows.length === 0) {
    abandon();
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
