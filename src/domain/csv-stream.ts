// The streaming mechanics under the CSV import: UTF-8 chunks that give the event loop a turn,
// delimiter detection on the first line, and a speed fix for csv-parse's relaxed column counts.
import type { Parser } from 'csv-parse';

// 16 KiB is ~1,500 short rows, ~3 ms of parsing: measured on 1M rows, 64 KiB chunks held the
// event loop for 10-35 ms at a time for the same total time (~2 s), so smaller it is.
const CHUNK_SIZE = 16 * 1024;

/**
 * The input as UTF-8 chunks of about CHUNK_SIZE. Text is cut between characters, never inside a
 * surrogate pair; bytes may be cut anywhere, since csv-parse joins a split character back up.
 */
export async function* utf8Chunks(input: string | AsyncIterable<string | Buffer>): AsyncGenerator<Buffer> {
  const sources: AsyncIterable<string | Buffer> | Iterable<string> = typeof input === 'string' ? [input] : input;
  let carry = ''; // a high surrogate whose partner is in the next string chunk
  for await (const source of sources) {
    if (typeof source !== 'string') {
      const bytes = Buffer.from(source.buffer, source.byteOffset, source.byteLength);
      for (let start = 0; start < bytes.length; start += CHUNK_SIZE) yield bytes.subarray(start, start + CHUNK_SIZE);
      continue;
    }
    const text = carry + source;
    carry = '';
    for (let start = 0; start < text.length;) {
      let end = Math.min(start + CHUNK_SIZE, text.length);
      const last = text.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff) end -= 1;
      if (end === start) {
        carry = text.slice(start);
        break;
      }
      yield Buffer.from(text.slice(start, end), 'utf8');
      start = end;
    }
  }
  if (carry !== '') yield Buffer.from(carry, 'utf8');
}

/**
 * Picks `,` `;` or tab from the first non-blank line by counting each outside quotes (a European
 * Excel writes `;`, a TSV export writes tabs). Fed byte by byte across chunks; `done` once decided.
 */
export function createDelimiterSniffer() {
  const counts = new Map<number, number>([
    [0x2c, 0],
    [0x3b, 0],
    [0x09, 0],
  ]);
  let quote: 'out' | 'in' | 'in-after-quote' = 'out';
  let fieldStart = true;
  let content = false;
  let done = false;
  const decide = (): string => {
    let best = 0x2c; // ties and lines without any delimiter go to `,`
    for (const [byte, count] of counts) if (count > (counts.get(best) ?? 0)) best = byte;
    return String.fromCharCode(best);
  };
  const feed = (bytes: Buffer): boolean => {
    for (let i = 0; i < bytes.length && !done; i += 1) {
      const b = bytes[i] ?? 0;
      if (quote === 'in') {
        if (b === 0x22) quote = 'in-after-quote';
        continue;
      }
      if (quote === 'in-after-quote') {
        quote = 'out';
        if (b === 0x22) {
          quote = 'in';
          continue;
        } // "" is an escaped quote
      }
      if (b === 0x0a || b === 0x0d) {
        if (content) done = true;
        else for (const key of counts.keys()) counts.set(key, 0); // a blank line's tabs do not vote
        fieldStart = true;
      } else if (counts.has(b)) {
        counts.set(b, (counts.get(b) ?? 0) + 1);
        if (b !== 0x09) content = true;
        fieldStart = true;
      } else if (b === 0x22 && fieldStart) {
        quote = 'in';
        content = true;
      } else if (b === 0x20) {
        fieldStart = false; // as in csv-parse, a quote after a space is text, not an opening quote
      } else if (b !== 0xef && b !== 0xbb && b !== 0xbf) {
        content = true; // anything but spaces and the bytes of a BOM (EF BB BF) makes the line non-blank
        fieldStart = false;
      }
    }
    return done;
  };
  return { feed, decide };
}

// With relax_column_count, csv-parse 6 still builds a CsvError (a stack trace plus JSON copies of
// the record and its context) for every record whose length differs from the first record's,
// ~20 µs each: a header over one-column rows made a 1M-row file take 20-30 s instead of 2 s.
// Its parser state (exposed as `api.state` for backward compatibility) is swapped for a copy
// whose expected length is always the current record's. The accessor lives on a class so the
// copy keeps V8's fast properties (an accessor defined on the object itself cost 35% on every file).
// Only speed depends on this: if a later version lays its state out differently, nothing is done.
class RecordLengthFollowingState {
  declare record: unknown[];
  get expectedRecordLength(): number {
    return this.record.length;
  }
  set expectedRecordLength(_ignored: unknown) {}
}
export function followRecordLengths(parser: Parser): void {
  const api = (parser as unknown as { api?: { state?: Record<string, unknown> } }).api;
  const state = api?.state;
  if (api === undefined || state === undefined || !Array.isArray(state.record) || !('expectedRecordLength' in state))
    return;
  const following = Object.assign(new RecordLengthFollowingState(), state);
  api.state = following as unknown as Record<string, unknown>;
  (parser as unknown as { state: unknown }).state = following;
}

/** Number of line breaks (CRLF, LF or CR) inside a record's values, i.e. how many extra lines it spans. */
export function breaksIn(record: readonly string[]): number {
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

/**
 * Checks bytes arriving in chunks are UTF-8 (a character may be split between chunks). csv-parse
 * would turn invalid bytes into U+FFFD, so a Latin-1 or UTF-16 file would import mangled names.
 */
export function createUtf8Check(): { feed(chunk: Buffer): boolean; end(): boolean } {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const valid = (run: () => void): boolean => {
    try {
      run();
      return true;
    } catch {
      return false;
    }
  };
  return {
    feed: (chunk) => valid(() => decoder.decode(chunk, { stream: true })),
    end: () => valid(() => decoder.decode()),
  };
}
