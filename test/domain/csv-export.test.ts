// CSV export cells: RFC 4180 quoting, and formula injection neutralised the OWASP way.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvCell, csvRow } from '../../src/domain/csv-export.ts';

describe('csvCell', () => {
  it('prefixes text that a spreadsheet would run as a formula', () => {
    assert.equal(csvCell('=1+1'), "'=1+1");
    assert.equal(csvCell('+1'), "'+1");
    assert.equal(csvCell('-1'), "'-1");
    assert.equal(csvCell('@x'), "'@x");
    assert.equal(csvCell('@SUM(A1:A2)'), "'@SUM(A1:A2)");
    assert.equal(csvCell('\tx'), "'\tx");
    // A CR inside a cell also needs quotes.
    assert.equal(csvCell('\rx'), `"'\rx"`);
    // Importers that trim leading spaces would still see the formula.
    assert.equal(csvCell('  =1'), "'  =1");
  });

  it('neutralises the classic payloads', () => {
    assert.equal(csvCell('=HYPERLINK("http://evil","x")'), `"'=HYPERLINK(""http://evil"",""x"")"`);
    assert.equal(csvCell("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
    assert.equal(csvCell("-2+3+cmd|' /C calc'!A0"), "'-2+3+cmd|' /C calc'!A0");
  });

  it('quotes delimiters, quotes, line breaks and surrounding whitespace', () => {
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('a;b'), '"a;b"');
    assert.equal(csvCell('line1\nline2'), '"line1\nline2"');
    assert.equal(csvCell('line1\r\nline2'), '"line1\r\nline2"');
    assert.equal(csvCell(' padded'), '" padded"');
    assert.equal(csvCell('padded '), '"padded "');
    // A formula after a delimiter is inside a quoted cell, so it is never a cell start.
    assert.equal(csvCell('x,=1+1'), '"x,=1+1"');
  });

  it('leaves plain text, numbers and ids alone', () => {
    assert.equal(csvCell('jack'), 'jack');
    assert.equal(csvCell('Jack Dorsey'), 'Jack Dorsey');
    assert.equal(csvCell('Zoë 🐦'), 'Zoë 🐦');
    assert.equal(csvCell('2026-11-23T12:00:00.000Z'), '2026-11-23T12:00:00.000Z');
    assert.equal(csvCell('a=b'), 'a=b');
    assert.equal(csvCell(''), '');
  });

  it('writes numbers plainly, negative ones too, and null and non-finite numbers as empty', () => {
    assert.equal(csvCell(-1), '-1');
    assert.equal(csvCell(-42.5), '-42.5');
    assert.equal(csvCell(0), '0');
    assert.equal(csvCell(1200), '1200');
    assert.equal(csvCell(null), '');
    assert.equal(csvCell(Number.NaN), '');
    assert.equal(csvCell(Number.POSITIVE_INFINITY), '');
  });
});

describe('csvRow', () => {
  it('joins encoded cells with commas and ends the record with CRLF', () => {
    assert.equal(
      csvRow(['2026-11-23T12:00:00.000Z', 'jack', '=evil()', 10, -1, null]),
      "2026-11-23T12:00:00.000Z,jack,'=evil(),10,-1,\r\n",
    );
    assert.equal(csvRow(['a "b"', 'c,d']), '"a ""b""","c,d"\r\n');
    assert.equal(csvRow([]), '\r\n');
  });
});
