// Tests for parseUsernameCsv over a corpus of real-world CSV shapes, limits and malformed files.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseUsernameCsv, type CsvImportOptions, type CsvImportPlan } from '../../src/domain/csv-import.ts';
import { PerchError } from '../../src/domain/errors.ts';

const defaults: CsvImportOptions = { defaultPlatform: 'x', maxRows: 10_000, maxBytes: 1_000_000 };
const parse = (input: string | AsyncIterable<string | Buffer>, options: Partial<CsvImportOptions> = {}) =>
  parseUsernameCsv(input, { ...defaults, ...options });

/** `line:platform:username` for each accepted row, the compact form most assertions compare. */
const accepted = (plan: CsvImportPlan) => plan.rows.map((row) => `${row.line}:${row.platform}:${row.username}`);
const rejections = (plan: CsvImportPlan) => plan.rejected.map((r) => `${r.line}:${r.code}:${r.value}`);

async function* chunksOf(parts: Array<string | Buffer>): AsyncGenerator<string | Buffer> {
  for (const part of parts) yield part;
}

async function assertPerchError(promise: Promise<unknown>, code: string, detail?: RegExp): Promise<PerchError> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof PerchError, `expected a PerchError, got ${String(error)}`);
  assert.equal(error.code, code);
  if (detail) assert.match(error.detail, detail);
  return error;
}

describe('parseUsernameCsv: line ends, delimiters and encodings', () => {
  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    it(`reads ${name} line ends and counts blank lines`, async () => {
      const plan = await parse(['alice', '', 'bob', '', '', 'carol', ''].join(eol));
      assert.deepEqual(accepted(plan), ['1:x:alice', '3:x:bob', '6:x:carol']);
      assert.equal(plan.received, 3);
    });
  }

  it('reads a file mixing line ends', async () => {
    const plan = await parse('alice\r\nbob\ncarol\rdave');
    assert.deepEqual(accepted(plan), ['1:x:alice', '2:x:bob', '3:x:carol', '4:x:dave']);
  });

  for (const [name, d] of [
    ['comma', ','],
    ['semicolon', ';'],
    ['tab', '\t'],
  ] as const) {
    it(`detects the ${name} delimiter`, async () => {
      const plan = await parse(
        `username${d}platform${d}tags${d}note\nalice${d}x${d}a|b${d}hello\nbob.bsky.social${d}bluesky${d}${d}`,
      );
      assert.deepEqual(accepted(plan), ['2:x:alice', '3:bluesky:bob.bsky.social']);
      assert.deepEqual(plan.rows[0]?.tags, ['a', 'b']);
      assert.equal(plan.rows[0]?.note, 'hello');
    });
  }

  it('ignores delimiters inside quotes when detecting, and skips blank leading lines', async () => {
    const plan = await parse('\n\n"a,b,c";"x"\nalice;bob\n');
    assert.deepEqual(rejections(plan), ['3:invalid_username:a,b,c']);
    assert.deepEqual(accepted(plan), ['4:x:alice']);
  });

  it('strips a UTF-8 BOM, from a string and from bytes split inside it', async () => {
    const text = '\uFEFFUsername,tags\nalice,t1\n';
    for (const input of [text, chunksOf([Buffer.from(text).subarray(0, 2), Buffer.from(text).subarray(2)])]) {
      const plan = await parse(input);
      assert.deepEqual(accepted(plan), ['2:x:alice']);
      assert.deepEqual(plan.warnings, []);
    }
  });

  it('reads multi-byte characters split across byte chunks', async () => {
    const bytes = Buffer.from('username,note\nalice,café ☕ 🐦\n');
    const parts = [...bytes].map((byte) => Buffer.from([byte])); // one byte at a time
    const plan = await parse(chunksOf(parts));
    assert.equal(plan.rows[0]?.note, 'café ☕ 🐦');
  });

  it('reads string chunks that split a surrogate pair', async () => {
    const text = 'username,note\nalice,🐦\n';
    const cut = text.indexOf('🐦') + 1;
    const plan = await parse(chunksOf([text.slice(0, cut), text.slice(cut)]));
    assert.equal(plan.rows[0]?.note, '🐦');
  });

  it('does not split a long string inside a multi-byte character', async () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `u${i},${'🐦é'.repeat(i % 7)}`);
    const plan = await parse(`username,note\n${rows.join('\n')}`);
    assert.equal(plan.rows.length, 5_000);
    assert.equal(plan.rows[4_999]?.note, '🐦é'.repeat(4_999 % 7));
  });
});

describe('parseUsernameCsv: quoting', () => {
  it('reads quoted commas and escaped quotes', async () => {
    const plan = await parse('username,note\n"alice","hello, ""world"""\n');
    assert.equal(plan.rows[0]?.note, 'hello, "world"');
  });

  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    it(`rejects a quoted value holding a ${name} line break, and keeps the next line numbers right`, async () => {
      const plan = await parse(['alice', '"bob', 'carol"', 'dave', '', '"eve', '', 'x"', 'frank'].join(eol));
      assert.deepEqual(rejections(plan), [`2:invalid_username:bob${eol}carol`, `6:invalid_username:eve${eol}${eol}x`]);
      assert.equal(plan.rejected[0]?.reason, 'contains a line break or control character');
      assert.deepEqual(accepted(plan), ['1:x:alice', '4:x:dave', '9:x:frank']);
    });
  }

  it('keeps a quoted line break in a note and numbers the following rows', async () => {
    const plan = await parse('username,note\r\nalice,"line one\r\nline two"\r\nbob,\r\n');
    assert.deepEqual(accepted(plan), ['2:x:alice', '4:x:bob']);
    assert.equal(plan.rows[0]?.note, 'line one\r\nline two');
  });

  it('keeps a stray quote inside an unquoted value as text', async () => {
    const plan = await parse('username,note\nalice,say "hi"\nbob,O"Brien\n');
    assert.deepEqual(
      plan.rows.map((row) => row.note),
      ['say "hi"', 'O"Brien'],
    );
  });
});

describe('parseUsernameCsv: headers', () => {
  for (const header of [
    'username',
    'Username',
    'USERNAME',
    'handle',
    'screen_name',
    'user',
    'Account',
    ' username ',
    '\u200Busername',
  ]) {
    it(`recognises the header ${JSON.stringify(header)}`, async () => {
      const plan = await parse(`${header}\nalice\n`);
      assert.deepEqual(accepted(plan), ['2:x:alice']);
      assert.equal(plan.received, 1);
    });
  }

  it('finds the username column anywhere and lists unknown columns once', async () => {
    const plan = await parse(
      'followers,Handle,Platform,Tags,Note,followers,bio\n10,alice,x,,,1,b\n20,bob.bsky.social,,,,2,c\n',
    );
    assert.deepEqual(accepted(plan), ['2:x:alice', '3:bluesky:bob.bsky.social']);
    assert.deepEqual(plan.warnings, ['ignored unknown column "followers"', 'ignored unknown column "bio"']);
  });

  it('warns about a second username column and uses the first', async () => {
    const plan = await parse('username,handle\nalice,bob\n');
    assert.deepEqual(accepted(plan), ['2:x:alice']);
    assert.deepEqual(plan.warnings, ['ignored duplicate column "handle"']);
  });

  it('reads rows whose number of columns changes from row to row', async () => {
    const plan = await parse(
      'username,platform,tags,note\nalice\nbob,x\ncarol,x,t1\ndave,x,t2,hi\nerin,,t3,hi,extra,more\nfrank\n',
    );
    assert.deepEqual(accepted(plan), ['2:x:alice', '3:x:bob', '4:x:carol', '5:x:dave', '6:x:erin', '7:x:frank']);
    assert.deepEqual(
      plan.rows.map((row) => [row.tags.join('|'), row.note]),
      [
        ['', null],
        ['', null],
        ['t1', null],
        ['t2', 'hi'],
        ['t3', 'hi'],
        ['', null],
      ],
    );
  });

  it('reads every row of a headerless file from its first column, without warnings', async () => {
    const plan = await parse('alice,42,whatever\n@bob,7\n');
    assert.deepEqual(accepted(plan), ['1:x:alice', '2:x:bob']);
    assert.deepEqual(plan.rows[0]?.tags, []);
    assert.equal(plan.rows[0]?.note, null);
    assert.deepEqual(plan.warnings, []);
  });

  it('returns an empty plan for a file with only a header', async () => {
    const plan = await parse('username,platform,tags\r\n');
    assert.deepEqual(plan, {
      rows: [],
      received: 0,
      duplicates: 0,
      rejected: [],
      rejectedCount: 0,
      rejectedTruncated: false,
      warnings: [],
    });
  });

  for (const [name, input] of [
    ['empty', ''],
    ['blank', '\n \n\r\n'],
    ['BOM only', '\uFEFF'],
    ['delimiters only', ',,\n,,,\n'],
  ] as const) {
    it(`returns an empty plan for ${name} input`, async () => {
      const plan = await parse(input);
      assert.equal(plan.rows.length, 0);
      assert.equal(plan.received, 0);
      assert.equal(plan.rejectedCount, 0);
    });
  }
});

describe('parseUsernameCsv: values', () => {
  it('normalises @names and profile URLs and infers the platform', async () => {
    const plan = await parse(
      [
        'username',
        '@alice',
        'https://x.com/bob',
        'http://twitter.com/carol/status/1',
        'www.twitter.com/dave?s=20',
        'https://bsky.app/profile/erin.bsky.social',
        'frank.bsky.social',
        'did:plc:z72i7hdynmk6r22z27h6tvur',
        ' \u200Bgina ',
      ].join('\n'),
      { defaultPlatform: 'x' },
    );
    assert.deepEqual(accepted(plan), [
      '2:x:alice',
      '3:x:bob',
      '4:x:carol',
      '5:x:dave',
      '6:bluesky:erin.bsky.social',
      '7:bluesky:frank.bsky.social',
      '8:bluesky:did:plc:z72i7hdynmk6r22z27h6tvur',
      '9:x:gina',
    ]);
  });

  it('uses the default platform for bare names', async () => {
    const plan = await parse('alice\n', { defaultPlatform: 'bluesky' });
    assert.deepEqual(rejections(plan), ['1:invalid_username:alice']);
  });

  it('reads the platform column (x, twitter, bluesky in any case) and rejects other values', async () => {
    const plan = await parse(
      'username,platform\nalice,X\nbob,Twitter\ncarol.bsky.social,BlueSky\ndave,facebook\nerin,\n',
    );
    assert.deepEqual(accepted(plan), ['2:x:alice', '3:x:bob', '4:bluesky:carol.bsky.social', '6:x:erin']);
    assert.deepEqual(rejections(plan), ['5:invalid_platform:facebook']);
  });

  it('lets the platform column win over the URL and the shape', async () => {
    const plan = await parse('username,platform\nhttps://bsky.app/profile/alice.bsky.social,x\n');
    assert.deepEqual(rejections(plan), ['2:invalid_username:https://bsky.app/profile/alice.bsky.social']);
  });

  it('counts case-insensitive duplicates per platform, first occurrence wins', async () => {
    const plan = await parse(
      'username,tags\nAlice,first\nalice,second\n@ALICE\nhttps://x.com/alice\nBob.bsky.social\nbob.BSKY.social\n',
    );
    assert.deepEqual(accepted(plan), ['2:x:Alice', '6:bluesky:bob.bsky.social']);
    assert.deepEqual(plan.rows[0]?.tags, ['first']);
    assert.equal(plan.rows[0]?.key, 'alice');
    assert.equal(plan.duplicates, 4);
    assert.equal(plan.received, 6);
  });

  it('splits, trims and dedupes tags, and rejects an over-long one', async () => {
    const plan = await parse(`username,tags\nalice," a ; b|a ||c "\nbob,${'t'.repeat(65)}\ncarol,${'t'.repeat(64)}\n`);
    assert.deepEqual(plan.rows[0]?.tags, ['a', 'b', 'c']);
    assert.deepEqual(plan.rows[1]?.tags, ['t'.repeat(64)]);
    assert.deepEqual(
      plan.rejected.map((r) => `${r.line}:${r.code}`),
      ['3:invalid_tags'],
    );
  });

  it('rejects invalid names with their line numbers, reason and a truncated value', async () => {
    const long = 'y'.repeat(300);
    const plan = await parse(`username,note\nalice\n\nbad name!\n,just a note\n${long}\n"a\tb"\nalice.1\n`);
    assert.deepEqual(accepted(plan), ['2:x:alice']);
    assert.deepEqual(
      plan.rejected.map((r) => `${r.line}:${r.code}`),
      ['4:invalid_username', '5:empty_username', '6:invalid_username', '7:invalid_username', '8:invalid_username'],
    );
    assert.deepEqual(plan.rejected[0], {
      line: 4,
      value: 'bad name!',
      code: 'invalid_username',
      reason: 'X usernames are 1-15 letters, digits or _',
    });
    assert.equal(plan.rejected[2]?.value, 'y'.repeat(200));
    assert.equal(plan.rejected[3]?.reason, 'contains a line break or control character');
    assert.equal(plan.received, 6);
    assert.equal(plan.rejectedCount, 5);
  });

  it('keeps the first 1,000 rejections and counts them all', async () => {
    const rows = Array.from({ length: 1_500 }, (_, i) => `bad-${i}`);
    const plan = await parse(rows.join('\n'));
    assert.equal(plan.rejected.length, 1_000);
    assert.equal(plan.rejectedCount, 1_500);
    assert.equal(plan.rejectedTruncated, true);
    assert.equal(plan.rejected[999]?.line, 1_000);
  });

  it('does not mark a list of exactly 1,000 rejections as truncated', async () => {
    const plan = await parse(Array.from({ length: 1_000 }, (_, i) => `bad-${i}`).join('\n'));
    assert.equal(plan.rejectedCount, 1_000);
    assert.equal(plan.rejectedTruncated, false);
  });
});

describe('parseUsernameCsv: limits and malformed files', () => {
  it('accepts exactly maxRows data rows, header and blank lines not counted', async () => {
    const plan = await parse('username\n\nalice\nbob\n\ncarol\n', { maxRows: 3 });
    assert.equal(plan.received, 3);
  });

  it('refuses more than maxRows data rows', async () => {
    await assertPerchError(
      parse('username\nalice\nbob\ncarol\ndave\n', { maxRows: 3 }),
      'csv_too_many_rows',
      /more than 3 rows/,
    );
  });

  it('refuses a large file with too many rows', async () => {
    const text = Array.from({ length: 200_000 }, (_, i) => `user${i}`).join('\n');
    await assertPerchError(parse(text, { maxRows: 1_000, maxBytes: 10_000_000 }), 'csv_too_many_rows');
  });

  it('refuses more than maxBytes, counted in UTF-8 bytes', async () => {
    assert.equal((await parse('ab', { maxBytes: 2 })).received, 1);
    await assertPerchError(parse('abc', { maxBytes: 2 }), 'import_too_large');
    await assertPerchError(parse('é', { maxBytes: 1 }), 'import_too_large'); // 1 character, 2 bytes
  });

  it('refuses a stream once it passes maxBytes, without reading the rest', async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      for (;;) {
        pulled += 1;
        yield Buffer.from('alice\n'.repeat(1_000));
      }
    }
    await assertPerchError(parse(endless(), { maxBytes: 100_000, maxRows: 1_000_000 }), 'import_too_large');
    assert.ok(pulled < 20);
  });

  it('reports progress in bytes', async () => {
    const seen: number[] = [];
    const text = Array.from({ length: 10_000 }, (_, i) => `user${i}`).join('\n');
    await parse(text, { onProgress: (bytes) => seen.push(bytes) });
    assert.ok(seen.length > 1);
    assert.equal(seen.at(-1), Buffer.byteLength(text));
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
    );
  });

  it('refuses an unclosed quote with the line where the record starts', async () => {
    const error = await assertPerchError(parse('username\nalice\n\n"bob\ncarol\n'), 'csv_malformed', /line 4/);
    assert.deepEqual(
      error.errors?.map((e) => e.line),
      [4],
    );
    assert.doesNotMatch(error.detail, /Quote Not Closed|CSV_/); // never the library's own message
  });

  it('refuses an unclosed quote in the first line', async () => {
    await assertPerchError(parse('"alice,bob\ncarol'), 'csv_malformed', /line 1/);
  });

  it('refuses an unclosed quote after blank lines without a complete first line', async () => {
    await assertPerchError(parse('\n\n"alice'), 'csv_malformed', /line 3/);
  });

  it('refuses a record over 1 MiB as soon as it passes it, without reading the rest', async () => {
    let pulled = 0;
    async function* oneValue(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 400; i += 1) {
        pulled += 1;
        yield Buffer.alloc(100_000, 'a'); // 40 MB in all, and no line break
      }
    }
    const error = await assertPerchError(
      parse(oneValue(), { maxBytes: 50_000_000 }),
      'csv_malformed',
      /longer than 1 MiB.*line 1/,
    );
    assert.doesNotMatch(error.detail, /CSV_|Max Record Size/);
    assert.ok(pulled < 15, `read ${pulled} of 400 chunks`);
  });

  it('refuses a quote that never closes in a long file at 1 MiB, with the line where it opened', async () => {
    const text = `username\nalice\n"bob\n${'carol\n'.repeat(300_000)}`;
    await assertPerchError(parse(text, { maxBytes: 50_000_000 }), 'csv_malformed', /longer than 1 MiB.*line 3/);
  });

  it('still reads records of many hundred KiB, such as rich exports with long columns', async () => {
    const plan = await parse(`username,bio\nalice,${'b'.repeat(900_000)}\nbob,short\n`, { maxBytes: 5_000_000 });
    assert.deepEqual(accepted(plan), ['2:x:alice', '3:x:bob']);
  });
});

describe('tags and notes follow the same rules as PATCH', () => {
  it('rejects tags PATCH would refuse, too many tags, and notes with control characters or too long', async () => {
    const csv = [
      'username,tags,note',
      'ok1,vip|press,"line one\nline two"',
      'bad1,foo/bar,',
      `bad2,${Array.from({ length: 51 }, (_, i) => `t${i}`).join('|')},`,
      'bad3,,"a\u0000b"',
      `bad4,,${'n'.repeat(1_001)}`,
    ].join('\n');
    const plan = await parseUsernameCsv(csv, { defaultPlatform: 'x', maxRows: 100, maxBytes: 1_000_000 });
    assert.deepEqual(
      plan.rows.map((r) => [r.username, r.tags, r.note]),
      [['ok1', ['vip', 'press'], 'line one\nline two']],
    );
    assert.deepEqual(
      plan.rejected.map((r) => [r.line, r.code]),
      [
        [4, 'invalid_tags'],
        [5, 'invalid_tags'],
        [6, 'invalid_note'],
        [7, 'invalid_note'],
      ],
    );
  });
});
