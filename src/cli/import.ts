// `perch import FILE`: register the usernames in a CSV file, directly in the store or through a server.
import type { Command } from 'commander';
import { importAccounts, type ImportResult } from '../services/import-accounts.ts';
import { withServices } from './context.ts';
import { importThroughServer } from './import-remote.ts';
import { loadConfig, loadEnvFile } from './load-config.ts';
import { findRunningServer } from '../services/running-server.ts';
import { openCsvFile, printReport, unreadable, type ImportOptions } from './import-file.ts';
import { printJson } from './output.ts';
import { startProgress, type Progress } from './progress.ts';

/** Without --url: read and validate the whole file, then write it in one transaction. */
async function importDirectly(file: string, options: ImportOptions): Promise<void> {
  const { stream, size } = await openCsvFile(file);
  const bars: { reading: Progress; writing: Progress | null } = {
    reading: startProgress('reading', size, 'bytes'),
    writing: null,
  };
  let result: ImportResult;
  try {
    result = await withServices(({ services }) =>
      importAccounts(services.imports, {
        source: stream,
        actor: 'cli',
        via: 'cli',
        progress: {
          read: (bytes) => bars.reading.update(bytes),
          planned: (rows) => {
            bars.reading.stop();
            bars.writing = startProgress('writing', rows, 'rows');
          },
          written: (written) => bars.writing?.update(written),
        },
      }),
    );
  } catch (error) {
    // A read failure half-way (the file vanished, an I/O error) arrives from the stream.
    if ((error as NodeJS.ErrnoException).syscall !== undefined && (error as NodeJS.ErrnoException).path !== undefined)
      throw unreadable(file, error);
    throw error;
  } finally {
    bars.reading.stop();
    bars.writing?.stop();
    stream.destroy();
  }
  // The same estimate the insert route answers with, for the accounts this import added.
  const { report, estimate } = result;
  if (options.json) printJson({ ...report, estimate });
  else printReport(file, report, 'into the store', estimate);
}

async function runImport(file: string, options: ImportOptions): Promise<void> {
  loadEnvFile();
  const url = options.url ?? process.env.PERCH_URL?.trim();
  if (url) return importThroughServer(file, url, options);
  // A server running on the same SQLite file: send the file through it rather than take SQLite's
  // one write lock from it for the whole import. Without an admin key, write directly: the server
  // answers its own writes 503 meanwhile instead of freezing.
  const config = loadConfig();
  const running = config.dataDir === null ? null : findRunningServer(config.dataDir);
  if (running !== null) {
    const key = options.apiKey ?? (process.env.PERCH_API_KEY?.trim() || process.env.ADMIN_API_KEY?.trim());
    if (key) {
      process.stderr.write(
        `perch: a server is running on this store (pid ${running.pid}); sending the file to it at ${running.url}\n`,
      );
      return importThroughServer(file, running.url, { ...options, apiKey: key });
    }
    process.stderr.write(
      `perch: a server is running on this store (pid ${running.pid}); writing directly. Set PERCH_API_KEY to send the file through it.\n`,
    );
  }
  return importDirectly(file, options);
}

export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description('register the usernames in a CSV file for tracking (the same rules as POST /api/admin/insert)')
    .argument('<file>', 'the CSV file: one username per line, optionally under a "username" header')
    .option(
      '--url <url>',
      'send the file to the perch server at this address (env PERCH_URL) instead of writing to the store',
    )
    .option(
      '--api-key <key>',
      'admin API key for --url (default: env PERCH_API_KEY, then ADMIN_API_KEY; the environment keeps it out of `ps`)',
    )
    .option('--json', 'print the import report (or the problem document) as JSON')
    .addHelpText(
      'after',
      [
        '',
        'Without --url the file is read and written directly to the store named by DATABASE_URL, in one transaction;',
        'when a server runs on that SQLite file and an admin key is set (PERCH_API_KEY or ADMIN_API_KEY), it goes through the server.',
        'A progress bar is shown on stderr when it is a terminal. Exit status: 0 imported, 1 nothing imported, 2 bad usage.',
        '',
        'Examples:',
        '  $ perch import accounts.csv',
        '  $ PERCH_API_KEY=perch_… perch import accounts.csv --url https://perch.example.com',
      ].join('\n'),
    )
    .action(runImport);
}
