// An import's rows as text, the way they go to the write thread (import-off-thread.ts): one line a
// row, its fields split by tabs. A copied string crosses to a thread at once, and building and
// splitting it costs half what JSON does; 20,000 row objects cloned by postMessage held the event
// loop for 60–125 ms in a server holding a million of them. Usernames and keys never hold a tab or
// a line break (they are validated); tags and notes, which might, go as JSON.
import type { ImportRow } from '../domain/csv-import.ts';
import type { Platform } from '../domain/platforms.ts';

/** Rows `start` to `end` (excluded) as text. */
export function rowsToText(rows: readonly ImportRow[], start: number, end: number): string {
  let text = '';
  for (let i = start; i < end && i < rows.length; i += 1) {
    const row = rows[i] as ImportRow;
    const tags = row.tags.length === 0 ? '' : JSON.stringify(row.tags);
    const note = row.note === null ? '' : JSON.stringify(row.note);
    const list = row.followerList === undefined ? '' : row.followerList ? '1' : '0';
    text += `${i === start ? '' : '\n'}${row.line}\t${row.platform}\t${row.username}\t${row.key}\t${tags}\t${note}\t${list}`;
  }
  return text;
}

/** The rows rowsToText wrote. */
export function rowsFromText(text: string): ImportRow[] {
  if (text === '') return [];
  return text.split('\n').map((line) => {
    const [at, platform, username, key, tags, note, list] = line.split('\t') as string[];
    const row: ImportRow = {
      line: Number(at),
      platform: platform as Platform,
      username: username as string,
      key: key as string,
      tags: tags ? (JSON.parse(tags) as string[]) : [],
      note: note ? (JSON.parse(note) as string) : null,
    };
    if (list) row.followerList = list === '1';
    return row;
  });
}
