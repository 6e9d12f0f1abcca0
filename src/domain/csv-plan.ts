// The import plan as records arrive: the header is found, rows are read, repeats counted, rejections
// kept (up to a bound) and the row limit enforced. One record at a time, so a file is never held.
import { PerchError } from './errors.ts';
import type { Platform } from './platforms.ts';
import { HEADERLESS, readHeader, readImportRow, type Columns, type ImportRow, type RejectionCode } from './csv-rows.ts';

export interface Rejection {
  line: number;
  value: string;
  code: RejectionCode;
  reason: string;
}
export interface CsvImportPlan {
  rows: ImportRow[];
  /** Data rows seen: non-blank records, header excluded. */
  received: number;
  duplicates: number;
  /** The first MAX_REJECTIONS_KEPT rejections; `rejectedCount` counts them all. */
  rejected: Rejection[];
  rejectedCount: number;
  rejectedTruncated: boolean;
  warnings: string[];
}

export const MAX_REJECTIONS_KEPT = 1_000;
const MAX_VALUE_SHOWN = 200;

export class ImportPlanBuilder {
  readonly plan: CsvImportPlan = {
    rows: [],
    received: 0,
    duplicates: 0,
    rejected: [],
    rejectedCount: 0,
    rejectedTruncated: false,
    warnings: [],
  };
  // One set of keys per platform: the key strings are shared with the rows, so no extra copies.
  private readonly seen: Record<Platform, Set<string>> = { x: new Set(), bluesky: new Set() };
  private columns: Columns | null = null;

  constructor(private readonly options: { defaultPlatform: Platform; maxRows: number }) {}

  /** Takes one non-blank record starting at `line`; throws csv_too_many_rows past the limit. */
  add(record: readonly string[], line: number): void {
    if (this.columns === null) {
      const header = readHeader(record);
      this.columns = header?.columns ?? HEADERLESS;
      if (header) {
        this.plan.warnings.push(...header.warnings);
        return;
      }
    }
    this.readRow(record, line, this.columns);
  }

  private readRow(record: readonly string[], line: number, columns: Columns): void {
    const { plan } = this;
    plan.received += 1;
    if (plan.received > this.options.maxRows) {
      throw new PerchError(
        'csv_too_many_rows',
        `The file has more than ${this.options.maxRows} rows; split it into smaller files.`,
      );
    }
    const reading = readImportRow(record, line, columns, this.options.defaultPlatform);
    if (reading.kind === 'rejected') return this.reject(line, reading.value, reading.code, reading.reason);
    const { row } = reading;
    if (this.seen[row.platform].has(row.key)) {
      plan.duplicates += 1;
      return;
    }
    this.seen[row.platform].add(row.key);
    if (reading.noteProblem !== null) return this.reject(line, row.note ?? '', 'invalid_note', reading.noteProblem);
    plan.rows.push(row);
  }

  private reject(line: number, value: string, code: RejectionCode, reason: string): void {
    const { plan } = this;
    plan.rejectedCount += 1;
    if (plan.rejected.length < MAX_REJECTIONS_KEPT)
      plan.rejected.push({ line, value: value.slice(0, MAX_VALUE_SHOWN), code, reason });
    else plan.rejectedTruncated = true;
  }
}
