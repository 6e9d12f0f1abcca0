// Shared by both ways of `perch import`: opening the CSV file and printing the import report.
import { open } from 'node:fs/promises';
import type { ReadStream } from 'node:fs';
import type { TrackingEstimate } from '../domain/spend.ts';
import type { ImportReport } from '../services/import-accounts.ts';
import { CliError, clean, quote, rejectionLines } from './output.ts';

export interface ImportOptions {
  url?: string;
  apiKey?: string;
  json?: boolean;
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'there is no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
};

/** A CSV file opened for reading, with its size for the progress bar; a clear message if it cannot be. */
export async function openCsvFile(file: string): Promise<{ stream: ReadStream; size: number }> {
  try {
    const handle = await open(file, 'r');
    try {
      const info = await handle.stat();
      if (!info.isFile())
        throw Object.assign(new Error('not a file'), { code: info.isDirectory() ? 'EISDIR' : 'ENOTFILE' });
      return { stream: handle.createReadStream(), size: info.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } catch (error) {
    throw unreadable(file, error);
  }
}

export function unreadable(file: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason =
    FS_REASONS[code] ??
    (code === 'ENOTFILE' ? 'it is not a regular file' : error instanceof Error ? error.message : String(error));
  return new CliError(`perch: cannot read ${quote(file)}: ${clean(reason)}.`, { cause: error });
}

/** What tracking the accounts an import added will cost, as the insert answer and the local import give it. */
export interface ImportEstimate {
  platforms: readonly TrackingEstimate[];
}

const usd = (n: number) => `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** One line per platform that received accounts: what tracking them costs a day and a month, and their first reads once. */
function estimateLines(estimate: ImportEstimate): string {
  const lines = estimate.platforms.map((p) => {
    const accounts = `${p.accounts.toLocaleString('en-US')} account${p.accounts === 1 ? '' : 's'}`;
    if (p.perDayUsd === 0 && p.firstReadUsd === 0) return `  ${p.platform}: ${accounts}, free to read\n`;
    return `  ${p.platform}: ${accounts}, ${usd(p.perDayUsd)} a day (${usd(p.perMonthUsd)} a month), first post reads at most ${usd(p.firstReadUsd)} once\n`;
  });
  return lines.length === 0 ? '' : `Estimated cost of tracking the added accounts:\n${lines.join('')}`;
}

export function printReport(file: string, report: ImportReport, where: string, estimate?: ImportEstimate): void {
  const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
  let text =
    `Imported ${quote(file)} ${where} (${report.importId}):\n` +
    `  ${plural(report.received, 'row')} received, ${report.accepted.toLocaleString('en-US')} accepted: ` +
    `${report.inserted.toLocaleString('en-US')} inserted, ${report.reactivated.toLocaleString('en-US')} reactivated, ${report.alreadyTracked.toLocaleString('en-US')} already tracked\n` +
    `  ${plural(report.duplicates, 'duplicate')}, ${report.rejectedCount.toLocaleString('en-US')} rejected\n`;
  if (report.rejected.length > 0) text += `Rejected rows:\n${rejectionLines(report.rejected, report.rejectedCount)}`;
  if (report.warnings.length > 0) text += `Warnings:\n${report.warnings.map((w) => `  ${clean(w)}\n`).join('')}`;
  if (estimate !== undefined) text += estimateLines(estimate);
  process.stdout.write(text);
}
