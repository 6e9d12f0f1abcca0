// Reading one CSV record of an import: the header (which column holds what), and a data row
// (username, platform, tags, note, follower_list) checked under the same rules as the rest of the API.
import { MAX_NOTE_LENGTH, MAX_TAGS, TAG_PATTERN } from './account.ts';
import type { Platform } from './platforms.ts';
import { CONTROL_CHARS_BUT_LINES, ZERO_WIDTH_CHARS } from './text.ts';
import { inferPlatform, normalizeUsernameInput, validateUsername } from './usernames.ts';

export interface ImportRow {
  line: number;
  platform: Platform;
  username: string;
  key: string;
  tags: string[];
  note: string | null;
  /** The `follower_list` cell: on, off, or absent (left as it is). */
  followerList?: boolean;
}

/** Why a row was not imported: a union, so a misspelled code does not compile. */
export type RejectionCode =
  | 'empty_username'
  | 'invalid_platform'
  | 'invalid_username'
  | 'invalid_tags'
  | 'invalid_note'
  | 'invalid_follower_list';

/** Where each field is: a column index, or -1 when the file has no such column. */
export interface Columns {
  username: number;
  platform: number;
  tags: number;
  note: number;
  follower_list: number;
}
export const HEADERLESS: Columns = { username: 0, platform: -1, tags: -1, note: -1, follower_list: -1 };

const USERNAME_HEADERS = new Set(['username', 'handle', 'screen_name', 'user', 'account']);
const OPTIONAL_HEADERS = new Set(['platform', 'tags', 'note', 'follower_list']);
const SWITCH_VALUES: Readonly<Record<string, boolean>> = {
  true: true,
  yes: true,
  on: true,
  '1': true,
  false: false,
  no: false,
  off: false,
  '0': false,
};
const PLATFORM_VALUES: Readonly<Record<string, Platform>> = { x: 'x', twitter: 'x', bluesky: 'bluesky' };

function headerName(cell: string): string {
  return cell.replace(ZERO_WIDTH_CHARS, '').trim();
}

/** The columns named by a header record, with warnings for columns ignored; null if it is no header. */
export function readHeader(record: readonly string[]): { columns: Columns; warnings: string[] } | null {
  const shown = record.map(headerName);
  const names = shown.map((name) => name.toLowerCase());
  const username = names.findIndex((name) => USERNAME_HEADERS.has(name));
  if (username === -1) return null;
  const columns: Columns = { username, platform: -1, tags: -1, note: -1, follower_list: -1 };
  const warnings = new Set<string>();
  names.forEach((name, index) => {
    if (index === username || name === '') return; // empty names come from trailing delimiters
    const label = JSON.stringify(shown[index]);
    const known = OPTIONAL_HEADERS.has(name) ? (name as keyof Columns) : null;
    if (known !== null && columns[known] === -1) columns[known] = index;
    else if (known !== null || USERNAME_HEADERS.has(name)) warnings.add(`ignored duplicate column ${label}`);
    else warnings.add(`ignored unknown column ${label}`);
  });
  return { columns, warnings: [...warnings] };
}

/** Tags from a CSV cell, under the same rules as PATCH: TAG_PATTERN each, MAX_TAGS at most. */
export function parseTags(cell: string): { ok: true; tags: string[] } | { ok: false; reason: string } {
  const tags = [
    ...new Set(
      cell
        .split(/[;|]/)
        .map((tag) => tag.trim())
        .filter((tag) => tag !== ''),
    ),
  ];
  if (tags.length > MAX_TAGS) return { ok: false, reason: `at most ${MAX_TAGS} tags per account` };
  if (tags.some((tag) => !TAG_PATTERN.test(tag)))
    return { ok: false, reason: 'tags are 1-64 letters, digits, spaces or _ . : -' };
  return { ok: true, tags };
}

export function noteProblem(note: string): string | null {
  if (note.length > MAX_NOTE_LENGTH) return `notes are at most ${MAX_NOTE_LENGTH} characters`;
  return CONTROL_CHARS_BUT_LINES.test(note) ? 'the note contains a control character' : null;
}

export type RowReading =
  | { kind: 'rejected'; value: string; code: RejectionCode; reason: string }
  /** The note is checked by the caller after duplicates: a repeat counts as one, whatever its note. */
  | { kind: 'row'; row: ImportRow; noteProblem: string | null };

/** Reads one data record (never blank) found at `line`. */
export function readImportRow(
  record: readonly string[],
  line: number,
  cols: Columns,
  defaultPlatform: Platform,
): RowReading {
  const cell = record[cols.username] ?? '';
  const { value, platformHint, notProfile } = normalizeUsernameInput(cell);
  if (notProfile !== undefined) return { kind: 'rejected', value: cell, code: 'invalid_username', reason: notProfile };
  if (value === '') return { kind: 'rejected', value: cell, code: 'empty_username', reason: 'the username is empty' };
  let explicit: Platform | null = null;
  const platformCell = (record[cols.platform] ?? '').trim();
  if (platformCell !== '') {
    explicit = PLATFORM_VALUES[platformCell.toLowerCase()] ?? null;
    if (explicit === null)
      return {
        kind: 'rejected',
        value: platformCell,
        code: 'invalid_platform',
        reason: 'the platform must be x or bluesky',
      };
  }
  const platform = inferPlatform(value, platformHint, explicit, defaultPlatform);
  const check = validateUsername(platform, value);
  if (!check.ok) return { kind: 'rejected', value: cell, code: check.code, reason: check.reason };
  const tags = parseTags(record[cols.tags] ?? '');
  if (!tags.ok) return { kind: 'rejected', value: record[cols.tags] ?? '', code: 'invalid_tags', reason: tags.reason };
  const switchCell = (record[cols.follower_list] ?? '').trim();
  const followerList = switchCell === '' ? undefined : SWITCH_VALUES[switchCell.toLowerCase()];
  if (switchCell !== '' && followerList === undefined)
    return {
      kind: 'rejected',
      value: switchCell,
      code: 'invalid_follower_list',
      reason: 'follower_list is true or false (yes/no, on/off, 1/0), or empty',
    };
  const note = (record[cols.note] ?? '').trim();
  const row: ImportRow = {
    line,
    platform,
    username: check.username,
    key: check.key,
    tags: tags.tags,
    note: note === '' ? null : note,
    ...(followerList === undefined ? {} : { followerList }),
  };
  return { kind: 'row', row, noteProblem: noteProblem(note) };
}
