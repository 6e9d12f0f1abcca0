// Property test: any set of valid names, written as any CSV dialect we accept, reads back as the same set.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseUsernameCsv } from '../../src/domain/csv-import.ts';
import { isXPage } from '../../src/domain/usernames.ts';

type Entry = { platform: 'x' | 'bluesky'; name: string; decorated: string; platformCell: string; note: string };

// A bare first value spelled like a username header would (rightly) be read as a header.
const HEADER_WORDS = new Set(['username', 'handle', 'screen_name', 'user', 'account']);
const RESERVED_TLDS = new Set(['alt', 'arpa', 'example', 'internal', 'invalid', 'local', 'localhost', 'onion']);

const xName = fc.stringMatching(/^[A-Za-z0-9_]{1,15}$/).filter((name) => !HEADER_WORDS.has(name.toLowerCase()));
const label = fc.stringMatching(/^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,8}[a-zA-Z0-9])?$/);
const tld = fc
  .stringMatching(/^[a-zA-Z](?:[a-zA-Z0-9-]{0,4}[a-zA-Z0-9])?$/)
  .filter((t) => !RESERVED_TLDS.has(t.toLowerCase()));
const handle = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), tld)
  .map(([labels, top]) => [...labels, top].join('.'));
const didPlc = fc.stringMatching(/^[a-z2-7]{24}$/).map((id) => `did:plc:${id}`);
const note = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('a, b; c\td', 'say "hi"', 'two\nlines', 'crlf\r\nhere'),
);

const xEntry = fc
  .record({
    name: xName,
    prefix: fc.constantFrom('', '@', 'https://x.com/', 'x.com/', 'http://twitter.com/', 'https://mobile.twitter.com/'),
    suffix: fc.constantFrom('', '/', '/status/123', '?s=20'),
    platformCell: fc.constantFrom('', 'x', 'X', 'twitter'),
    note,
    // x.com/home, x.com/i… are pages of X, rightly refused as addresses of a profile.
  })
  .filter(({ name, prefix }) => !(prefix.includes('/') && isXPage(name)))
  .map(({ name, prefix, suffix, platformCell, note }): Entry => ({
    platform: 'x',
    name,
    note,
    platformCell,
    decorated: prefix.includes('/') ? `${prefix}${name}${suffix}` : `${prefix}${name}`,
  }));
const blueskyEntry = fc
  .record({
    name: fc.oneof({ weight: 4, arbitrary: handle }, { weight: 1, arbitrary: didPlc }),
    prefix: fc.constantFrom('', '@', 'https://bsky.app/profile/', 'bsky.app/profile/'),
    platformCell: fc.constantFrom('', 'bluesky', 'Bluesky'),
    note,
  })
  .map(({ name, prefix, platformCell, note }): Entry => ({
    platform: 'bluesky',
    name,
    note,
    platformCell,
    decorated: `${prefix}${name}`,
  }));

type Dialect = {
  delimiter: string;
  eol: string;
  bom: boolean;
  header: string;
  withPlatform: boolean;
  withNote: boolean;
  quoteAll: 'never' | 'always' | 'random';
  trailingEol: boolean;
};
const dialect: fc.Arbitrary<Dialect> = fc.record({
  delimiter: fc.constantFrom(',', ';', '\t'),
  eol: fc.constantFrom('\n', '\r\n', '\r'),
  bom: fc.boolean(),
  header: fc.constantFrom('none', 'username', 'Handle', 'screen_name'),
  withPlatform: fc.boolean(),
  withNote: fc.boolean(),
  quoteAll: fc.constantFrom<'never' | 'always' | 'random'>('never', 'always', 'random'),
  trailingEol: fc.boolean(),
});

function serialise(entries: Entry[], d: Dialect, quoteFlags: boolean[], blanks: boolean[]): string {
  const needsQuotes = (value: string) => /[",;\t\r\n]/.test(value) || value !== value.trim();
  const cell = (value: string, index: number) => {
    const quote =
      needsQuotes(value) ||
      d.quoteAll === 'always' ||
      (d.quoteAll === 'random' && (quoteFlags[index % quoteFlags.length] ?? false));
    return quote ? `"${value.replaceAll('"', '""')}"` : value;
  };
  const hasHeader = d.header !== 'none';
  const columns = (e: Entry) => [
    e.decorated,
    ...(hasHeader && d.withPlatform ? [e.platformCell] : []),
    ...(d.withNote ? [e.note] : []),
  ];
  const lines: string[] = [];
  if (hasHeader)
    lines.push([d.header, ...(d.withPlatform ? ['platform'] : []), ...(d.withNote ? ['note'] : [])].join(d.delimiter));
  entries.forEach((entry, i) => {
    if (blanks[i % Math.max(blanks.length, 1)] === true) lines.push('');
    lines.push(
      columns(entry)
        .map((value, j) => cell(value, i * 3 + j))
        .join(d.delimiter),
    );
  });
  return `${d.bom ? '\uFEFF' : ''}${lines.join(d.eol)}${d.trailingEol ? d.eol : ''}`;
}

describe('parseUsernameCsv round trip', () => {
  it('reads back exactly the set of accounts that was written, in any dialect', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(xEntry, blueskyEntry), { maxLength: 30 }),
        dialect,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
        fc.array(fc.boolean(), { maxLength: 5 }),
        async (entries, d, quoteFlags, blanks) => {
          const text = serialise(entries, d, quoteFlags, blanks);
          const plan = await parseUsernameCsv(text, { defaultPlatform: 'x', maxRows: 1_000, maxBytes: 1_000_000 });
          const expected = new Set(entries.map((e) => `${e.platform}:${e.name.toLowerCase()}`));
          const actual = plan.rows.map((row) => `${row.platform}:${row.key}`);
          assert.deepEqual(plan.rejected, []);
          assert.equal(plan.received, entries.length);
          assert.equal(new Set(actual).size, actual.length, 'rows are unique');
          assert.deepEqual(new Set(actual), expected);
          assert.equal(plan.duplicates, entries.length - expected.size);
        },
      ),
      { numRuns: 200 },
    );
  });
});
