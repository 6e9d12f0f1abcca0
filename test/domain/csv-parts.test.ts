// The named parts under parseUsernameCsv, each on its own: the header reader, the row reader, the
// plan builder (repeats, rejections, the row limit) and the streaming UTF-8 check.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ImportPlanBuilder, MAX_REJECTIONS_KEPT } from '../../src/domain/csv-plan.ts';
import { HEADERLESS, readHeader, readImportRow } from '../../src/domain/csv-rows.ts';
import { createUtf8Check } from '../../src/domain/csv-stream.ts';
import { parseUsernameCsv } from '../../src/domain/csv-import.ts';
import { PerchError } from '../../src/domain/errors.ts';

describe('readHeader', () => {
  it('finds the username column by any of its names, and the optional ones', () => {
    assert.deepEqual(readHeader([' Note', 'HANDLE', 'tags', 'platform', 'Follower_List']), {
      columns: { username: 1, platform: 3, tags: 2, note: 0, follower_list: 4 },
      warnings: [],
    });
  });

  it('warns about unknown and repeated columns and ignores empty ones', () => {
    const header = readHeader(['username', 'city', 'user', 'note', 'note', '']);
    assert.deepEqual(header?.warnings, [
      'ignored unknown column "city"',
      'ignored duplicate column "user"',
      'ignored duplicate column "note"',
    ]);
    assert.equal(header?.columns.note, 3);
  });

  it('is null for a record that names no username column', () => {
    assert.equal(readHeader(['jack', 'x']), null);
  });
});

describe('readImportRow', () => {
  const cols = { username: 0, platform: 1, tags: 2, note: 3, follower_list: 4 };
  it('reads a row with its platform, tags and note', () => {
    assert.deepEqual(readImportRow(['@Jack', 'twitter', 'a; b|a', ' hi '], 7, cols, 'bluesky'), {
      kind: 'row',
      row: { line: 7, platform: 'x', username: 'Jack', key: 'jack', tags: ['a', 'b'], note: 'hi' },
      noteProblem: null,
    });
  });

  it('says why a row is refused, with the value at fault', () => {
    assert.deepEqual(readImportRow(['  '], 1, HEADERLESS, 'x'), {
      kind: 'rejected',
      value: '  ',
      code: 'empty_username',
      reason: 'the username is empty',
    });
    assert.equal((readImportRow(['jack', 'myspace'], 1, cols, 'x') as { code: string }).code, 'invalid_platform');
    assert.equal((readImportRow(['jack', '', 'bad!tag'], 1, cols, 'x') as { code: string }).code, 'invalid_tags');
    assert.equal((readImportRow(['x.com/home'], 1, HEADERLESS, 'x') as { code: string }).code, 'invalid_username');
  });

  it('reads follower_list as a switch, leaves an empty cell as it is, and refuses anything else', () => {
    const row = (cell: string) => readImportRow(['jack', '', '', '', cell], 1, cols, 'x');
    assert.deepEqual(row('Yes'), {
      kind: 'row',
      row: { line: 1, platform: 'x', username: 'jack', key: 'jack', tags: [], note: null, followerList: true },
      noteProblem: null,
    });
    assert.equal(row('0').kind === 'row' && (row('0') as { row: { followerList?: boolean } }).row.followerList, false);
    assert.equal(row('').kind === 'row' && 'followerList' in (row('') as { row: object }).row, false);
    assert.equal((row('maybe') as { code: string }).code, 'invalid_follower_list');
  });

  it('leaves a bad note to the caller, which checks repeats first', () => {
    const reading = readImportRow(['jack', '', '', 'a\u0007b'], 1, cols, 'x');
    assert.equal(reading.kind, 'row');
    assert.equal(reading.kind === 'row' && reading.noteProblem, 'the note contains a control character');
  });
});

describe('ImportPlanBuilder', () => {
  it('takes a header, counts repeats across spellings, and keeps rejections with their lines', () => {
    const builder = new ImportPlanBuilder({ defaultPlatform: 'x', maxRows: 10 });
    for (const [line, record] of [
      [1, ['username', 'note']],
      [2, ['jack', '']],
      [3, ['@JACK', 'a\u0007']],
      [4, ['bad name', '']],
      [5, ['bob', 'a\u0007']],
    ] as const) {
      builder.add(record, line);
    }
    const { plan } = builder;
    assert.deepEqual(
      plan.rows.map((r) => r.username),
      ['jack'],
    );
    assert.equal(plan.received, 4);
    assert.equal(plan.duplicates, 1);
    assert.deepEqual(
      plan.rejected.map((r) => `${r.line}:${r.code}`),
      ['4:invalid_username', '5:invalid_note'],
    );
  });

  it('keeps the first rejections only, and refuses rows past the limit', () => {
    const builder = new ImportPlanBuilder({ defaultPlatform: 'x', maxRows: MAX_REJECTIONS_KEPT + 2 });
    for (let i = 1; i <= MAX_REJECTIONS_KEPT + 2; i += 1) builder.add([`bad name ${i}`], i);
    assert.equal(builder.plan.rejected.length, MAX_REJECTIONS_KEPT);
    assert.equal(builder.plan.rejectedCount, MAX_REJECTIONS_KEPT + 2);
    assert.equal(builder.plan.rejectedTruncated, true);
    assert.throws(
      () => builder.add(['one too many'], 9_999),
      (error: unknown) => error instanceof PerchError && error.code === 'csv_too_many_rows',
    );
  });
});

describe('UTF-8 check', () => {
  it('accepts a character split between chunks and refuses bytes that are not UTF-8', () => {
    const ok = createUtf8Check();
    const bytes = Buffer.from('é🐦');
    assert.ok([...bytes].every((byte) => ok.feed(Buffer.from([byte]))));
    assert.ok(ok.end());
    assert.equal(createUtf8Check().feed(Buffer.from([0x6a, 0xe9, 0x2c])), false, 'Latin-1 é');
    const cut = createUtf8Check();
    assert.ok(cut.feed(Buffer.from([0xf0, 0x9f])));
    assert.equal(cut.end(), false, 'a character cut off at the end');
  });

  it('makes parseUsernameCsv refuse a Latin-1 upload instead of importing U+FFFD', async () => {
    async function* latin1() {
      yield Buffer.from('username,note\njack,caf', 'latin1');
      yield Buffer.from('é\n', 'latin1');
    }
    await assert.rejects(
      parseUsernameCsv(latin1(), { defaultPlatform: 'x', maxRows: 10, maxBytes: 1_000 }),
      (error: unknown) => error instanceof PerchError && error.code === 'invalid_encoding',
    );
  });
});
