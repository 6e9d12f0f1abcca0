// Reading an uploaded CSV of usernames into an import plan: valid unique rows, rejections, warnings.
import { parse, CsvError, type Parser } from 'csv-parse';
import { createDelimiterSniffer, followRecordLengths, utf8Chunks } from './csv-stream.ts';
import { MAX_NOTE_LENGTH, MAX_TAGS, TAG_PATTERN } from './account.ts';
import { PerchError } from './errors.ts';
import { CONTROL_CHARS_BUT_LINES, ZERO_WIDTH_CHARS } from './text.ts';
import type { Platform } from './platforms.ts';
import { inferPlatform, normalizeUsernameInput, validateUsername } from './usernames.ts';

export interface ImportRow { line: number; platform: Platform; username: string; key: string; tags: string[]; note: string | null }
export interface Rejection { line: number; value: string; code: string; reason: string }
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
export interface CsvImportOptions { defaultPlatform: Platform; maxRows: number; maxBytes: number; onProgress?: (bytesRead: number) => void }

export const MAX_REJECTIONS_KEPT = 1_000;
const MAX_VALUE_SHOWN = 200;
const USERNAME_HEADERS = new Set(['username', 'handle', 'screen_name', 'user', 'account']);
const OPTIONAL_HEADERS = new Set(['platform', 'tags', 'note']);
const PLATFORM_VALUES: Readonly<Record<string, Platform>> = { x: 'x', twitter: 'x', bluesky: 'bluesky' };

interface Columns { username: number; platform: number; tags: number; note: number }
const HEADERLESS: Columns = { username: 0, platform: -1, tags: -1, note: -1 };

function headerName(cell: string): string {
  return cell.replace(ZERO_WIDTH_CHARS, '').trim();
}

/** Number of line breaks (CRLF, LF or CR) inside a record's values, i.e. how many extra lines it spans. */
function breaksIn(record: string[]): number {
  let breaks = 0;
  for (const field of record) {
    if (field.indexOf('\n') === -1 && field.indexOf('\r') === -1) continue;
    for (let i = 0; i < field.length; i += 1) {
      const c = field.charCodeAt(i);
      if (c === 0x0a || (c === 0x0d && field.charCodeAt(i + 1) !== 0x0a)) breaks += 1;
    }
  }
  return breaks;
}

/** Tags from a CSV cell, under the same rules as PATCH: TAG_PATTERN each, MAX_TAGS at most. */
function parseTags(cell: string): { ok: true; tags: string[] } | { ok: false; reason: string } {
  const tags = [...new Set(cell.split(/[;|]/).map((tag) => tag.trim()).filter((tag) => tag !== ''))];
  if (tags.length > MAX_TAGS) return { ok: false, reason: `at most ${MAX_TAGS} tags per account` };
  if (tags.some((tag) => !TAG_PATTERN.test(tag))) return { ok: false, reason: 'tags are 1-64 letters, digits, spaces or _ . : -' };
  return { ok: true, tags };
}

function noteProblem(note: string): string | null {
  if (note.length > MAX_NOTE_LENGTH) return `notes are at most ${MAX_NOTE_LENGTH} characters`;
  return CONTROL_CHARS_BUT_LINES.test(note) ? 'the note contains a control character' : null;
}

/** Parses a whole CSV upload, streaming, yielding to the event loop between chunks. */
export async function parseUsernameCsv(input: string | AsyncIterable<string | Buffer>, options: CsvImportOptions): Promise<CsvImportPlan> {
  const { defaultPlatform, maxRows, maxBytes, onProgress } = options;
  const tooLarge = () => new PerchError('import_too_large', `The file is larger than the ${maxBytes}-byte limit.`);
  // A string is already in memory: refuse it before spending time parsing it.
  if (typeof input === 'string' && Buffer.byteLength(input, 'utf8') > maxBytes) throw tooLarge();

  const plan: CsvImportPlan = { rows: [], received: 0, duplicates: 0, rejected: [], rejectedCount: 0, rejectedTruncated: false, warnings: [] };
  // One set of keys per platform: the key strings are shared with the rows, so no extra copies.
  const seen: Record<Platform, Set<string>> = { x: new Set(), bluesky: new Set() };
  let columns: Columns | null = null;
  let nextLine = 1; // where the next record starts

  const reject = (line: number, value: string, code: string, reason: string): void => {
    plan.rejectedCount += 1;
    if (plan.rejected.length < MAX_REJECTIONS_KEPT) plan.rejected.push({ line, value: value.slice(0, MAX_VALUE_SHOWN), code, reason });
    else plan.rejectedTruncated = true;
  };

  const readHeader = (record: string[]): Columns | null => {
    const shown = record.map(headerName);
    const names = shown.map((name) => name.toLowerCase());
    const username = names.findIndex((name) => USERNAME_HEADERS.has(name));
    if (username === -1) return null;
    const found: Columns = { username, platform: -1, tags: -1, note: -1 };
    const warnings = new Set<string>();
    names.forEach((name, index) => {
      if (index === username || name === '') return; // empty names come from trailing delimiters
      const label = JSON.stringify(shown[index]);
      const known = OPTIONAL_HEADERS.has(name) ? (name as keyof Columns) : null;
      if (known !== null && found[known] === -1) found[known] = index;
      else if (known !== null || USERNAME_HEADERS.has(name)) warnings.add(`ignored duplicate column ${label}`);
      else warnings.add(`ignored unknown column ${label}`);
    });
    plan.warnings.push(...warnings);
    return found;
  };

  let failure: unknown = null; // the first error, from csv-parse or from a limit; checked between chunks

  const readRow = (record: string[], line: number, cols: Columns): void => {
    plan.received += 1;
    if (plan.received > maxRows) {
      failure ??= new PerchError('csv_too_many_rows', `The file has more than ${maxRows} rows; split it into smaller files.`);
      return;
    }
    const cell = record[cols.username] ?? '';
    const { value, platformHint } = normalizeUsernameInput(cell);
    if (value === '') return reject(line, cell, 'empty_username', 'the username is empty');
    let explicit: Platform | null = null;
    const platformCell = (record[cols.platform] ?? '').trim();
    if (platformCell !== '') {
      explicit = PLATFORM_VALUES[platformCell.toLowerCase()] ?? null;
      if (explicit === null) return reject(line, platformCell, 'invalid_platform', 'the platform must be x or bluesky');
    }
    const platform = inferPlatform(value, platformHint, explicit, defaultPlatform);
    const check = validateUsername(platform, value);
    if (!check.ok) return reject(line, cell, check.code, check.reason);
    const tags = parseTags(record[cols.tags] ?? '');
    if (!tags.ok) return reject(line, record[cols.tags] ?? '', 'invalid_tags', tags.reason);
    if (seen[platform].has(check.key)) {
      plan.duplicates += 1;
      return;
    }
    seen[platform].add(check.key);
    const note = (record[cols.note] ?? '').trim();
    const badNote = noteProblem(note);
    if (badNote !== null) return reject(line, note, 'invalid_note', badNote);
    plan.rows.push({ line, platform, username: check.username, key: check.key, tags: tags.tags, note: note === '' ? null : note });
  };

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
      if (columns === null) {
        columns = readHeader(record) ?? HEADERLESS;
        if (columns !== HEADERLESS) return;
      }
      readRow(record, line, columns);
    } catch (error) {
      failure ??= error; // never throw through csv-parse's stack
    }
  };

  let parser: Parser | null = null;
  const fail = (error: unknown): never => {
    parser?.destroy();
    if (error instanceof CsvError) {
      // The raw message quotes file contents and csv-parse internals; only say where and what.
      const what = error.code === 'CSV_QUOTE_NOT_CLOSED' ? 'a quoted value is never closed' : 'it is not valid CSV';
      throw new PerchError('csv_malformed', `The file could not be read as CSV: ${what} (record starting at line ${nextLine}).`, {
        errors: [{ line: nextLine, code: 'csv_malformed', message: what }],
      });
    }
    throw error;
  };
  const startParser = (delimiter: string): Parser => {
    const created = parse({
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
    created.on('data', onRecord);
    created.on('error', (error: unknown) => { failure ??= error; });
    followRecordLengths(created);
    return created;
  };
  // Records are handled as each chunk is parsed; the pause after it lets other requests run.
  const feed = async (target: Parser, chunks: Buffer[]): Promise<void> => {
    for (const chunk of chunks) await new Promise<void>((resolve) => target.write(chunk, () => resolve()));
    await new Promise(setImmediate);
    if (failure !== null) fail(failure);
  };

  try {
    const sniffer = createDelimiterSniffer();
    let pending: Buffer[] = []; // held until the delimiter is known
    let bytesRead = 0;
    for await (const chunk of utf8Chunks(input)) {
      bytesRead += chunk.length;
      if (bytesRead > maxBytes) throw tooLarge();
      if (parser !== null) {
        await feed(parser, [chunk]);
      } else {
        pending.push(chunk);
        if (sniffer.feed(chunk)) {
          parser = startParser(sniffer.decide());
          await feed(parser, pending);
          pending = [];
        }
      }
      onProgress?.(bytesRead);
    }
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
  return plan;
}
