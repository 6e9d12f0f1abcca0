// Reading an uploaded CSV of usernames into an import plan: valid unique rows, rejections, warnings.
// The bytes stream through a UTF-8 check and csv-parse into the plan builder (csv-plan.ts), which
// reads each record with csv-rows.ts; the event loop gets a turn between chunks.
import { parse, CsvError, type Parser } from 'csv-parse';
import { ImportPlanBuilder, type CsvImportPlan } from './csv-plan.ts';
import { breaksIn, createDelimiterSniffer, createUtf8Check, followRecordLengths, utf8Chunks } from './csv-stream.ts';
import { PerchError } from './errors.ts';
import type { Platform } from './platforms.ts';
import type { ImportRow } from './csv-rows.ts';

export type { ImportRow } from './csv-rows.ts';
export { MAX_REJECTIONS_KEPT, type CsvImportPlan, type Rejection } from './csv-plan.ts';

export interface CsvImportOptions {
  defaultPlatform: Platform;
  maxRows: number;
  maxBytes: number;
  onProgress?: (bytesRead: number) => void;
  /** Called between chunks with the rows planned so far (the same, growing array). */
  onRows?: (rows: readonly ImportRow[]) => void;
}

/** The one refusal of an over-limit import, whichever form it came in. */
export function importTooLarge(maxBytes: number): PerchError {
  return new PerchError('import_too_large', `The file is larger than MAX_IMPORT_BYTES (${maxBytes} bytes).`);
}

export function notUtf8(): PerchError {
  return new PerchError('invalid_encoding', 'The file is not UTF-8 text.');
}

/** csv-parse's error as ours: its raw message quotes file contents and internals, so only say where and what. */
function csvMalformed(error: CsvError, line: number): PerchError {
  const what =
    error.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quoted value is never closed'
      : error.code === 'CSV_MAX_RECORD_SIZE'
        ? `a record is longer than ${MAX_RECORD_BYTES / 1_048_576} MiB (a quoted value that never closes, or not a list of usernames)`
        : 'it is not valid CSV';
  return new PerchError(
    'csv_malformed',
    `The file could not be read as CSV: ${what} (record starting at line ${line}).`,
    {
      errors: [{ line, code: 'csv_malformed', message: what }],
    },
  );
}

/**
 * No record of usernames comes near this: a username, a platform, 50 tags and a 1,000-character
 * note fit in a few KiB, with room for the other columns of a rich export. Past it the upload is
 * refused at once, rather than held and read as one huge value (a 40 MB value took a second of
 * the event loop to check, while every other request waited).
 */
export const MAX_RECORD_BYTES = 1_048_576;
const SNIFF_BYTES = 65_536;

function createParser(delimiter: string): Parser {
  return parse({
    max_record_size: MAX_RECORD_BYTES,
    bom: true,
    delimiter,
    // All three line ends at once (rather than csv-parse's auto-detection, which locks onto the
    // first one it sees), so a file pasted together from several sources still splits per line.
    record_delimiter: ['\r\n', '\n', '\r'],
    quote: '"',
    escape: '"',
    relax_column_count: true,
    // A stray quote inside an unquoted value (`O"Brien`, a note with "air quotes") is kept as text
    // instead of failing the whole upload; an unclosed quoted value still fails.
    relax_quotes: true,
  });
}

/** Parses a whole CSV upload, streaming, yielding to the event loop between chunks. */
export async function parseUsernameCsv(
  input: string | AsyncIterable<string | Buffer>,
  options: CsvImportOptions,
): Promise<CsvImportPlan> {
  const { maxBytes, onProgress } = options;
  // A string is already in memory: refuse it before spending time parsing it.
  if (typeof input === 'string' && Buffer.byteLength(input, 'utf8') > maxBytes) throw importTooLarge(maxBytes);
  const builder = new ImportPlanBuilder(options);
  let nextLine = 1; // where the next record starts
  let failure: unknown = null; // the first error, from csv-parse or from a limit; checked between chunks

  // Runs for every record as csv-parse emits it; no record is kept once it has been read.
  // Line numbers are counted here rather than read from `info.lines`, which counts a CRLF inside a
  // quoted value as two lines (csv-parse 6.2); `info` would also cost two object copies per record.
  const onRecord = (record: string[]): void => {
    const line = nextLine;
    nextLine += 1 + breaksIn(record);
    if (failure !== null) return;
    // Blank lines (and rows of empty cells such as `,,`) are skipped but still numbered.
    if (record.every((cell) => cell.trim() === '')) return;
    try {
      builder.add(record, line);
    } catch (error) {
      failure ??= error; // never throw through csv-parse's stack
    }
  };

  let parser: Parser | null = null;
  const fail = (error: unknown): never => {
    parser?.destroy();
    throw error instanceof CsvError ? csvMalformed(error, nextLine) : error;
  };
  const startParser = (delimiter: string): Parser => {
    const created = createParser(delimiter);
    created.on('data', onRecord);
    created.on('error', (error: unknown) => {
      failure ??= error;
    });
    followRecordLengths(created);
    return created;
  };
  // Records are handled as each chunk is parsed; the pause after it lets other requests run.
  const feed = async (target: Parser, chunks: Buffer[]): Promise<void> => {
    for (const chunk of chunks) {
      await new Promise<void>((resolve) => target.write(chunk, () => resolve()));
      await new Promise(setImmediate);
      if (failure !== null) fail(failure);
    }
    options.onRows?.(builder.plan.rows);
  };

  try {
    const sniffer = createDelimiterSniffer();
    // Text given as a string is UTF-8 by construction; bytes are checked as they come.
    const utf8 = typeof input === 'string' ? null : createUtf8Check();
    let pending: Buffer[] = []; // held until the delimiter is known
    let bytesRead = 0;
    for await (const chunk of utf8Chunks(input)) {
      bytesRead += chunk.length;
      if (bytesRead > maxBytes) throw importTooLarge(maxBytes);
      if (utf8 && !utf8.feed(chunk)) throw notUtf8();
      if (parser !== null) {
        await feed(parser, [chunk]);
      } else {
        pending.push(chunk);
        // The delimiter is decided on the first line, or on its first SNIFF_BYTES if it goes on.
        if (sniffer.feed(chunk) || bytesRead >= SNIFF_BYTES) {
          parser = startParser(sniffer.decide());
          await feed(parser, pending);
          pending = [];
        }
      }
      onProgress?.(bytesRead);
    }
    if (utf8 && !utf8.end()) throw notUtf8();
    if (parser === null) {
      parser = startParser(sniffer.decide());
      await feed(parser, pending);
    }
    const last = parser;
    await new Promise<void>((resolve) => {
      last.once('end', resolve);
      last.once('error', () => resolve());
      last.end();
    });
    if (failure !== null) fail(failure);
  } catch (error) {
    fail(error);
  }
  return builder.plan;
}
