// Imports are written in the unique index's (platform, key) order (storage/key-order.ts): small
// ones sorted in place, large ones on a worker thread, in pieces fed while the file is read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyOrder } from '../../src/storage/key-order.ts';

interface Row {
  platform: 'x' | 'bluesky';
  key: string;
  line: number;
}

/** Distinct rows of both platforms in a shuffled order (a fixed seed, so every run sees the same). */
function shuffledRows(count: number): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < count; i += 1)
    rows.push({
      platform: i % 3 === 0 ? 'bluesky' : 'x',
      key: i % 3 === 0 ? `h${i.toString(36)}.bsky.social` : `u${(i * 7919).toString(36)}`,
      line: i + 2,
    });
  let seed = 42;
  for (let i = rows.length - 1; i > 0; i -= 1) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = seed % (i + 1);
    [rows[i], rows[j]] = [rows[j] as Row, rows[i] as Row];
  }
  return rows;
}

function assertInKeyOrder(sorted: readonly Row[], input: readonly Row[]): void {
  assert.equal(sorted.length, input.length);
  assert.deepEqual(new Set(sorted), new Set(input), 'the same row objects, none lost or repeated');
  for (let i = 1; i < sorted.length; i += 1) {
    const a = sorted[i - 1] as Row;
    const b = sorted[i] as Row;
    const ordered = a.platform < b.platform || (a.platform === b.platform && a.key < b.key);
    assert.ok(ordered, `row ${i - 1} (${a.platform} ${a.key}) comes before row ${i} (${b.platform} ${b.key})`);
  }
}

describe('the order an import is written in', () => {
  it('sorts a small import by platform, then key, leaving the input as it was', async () => {
    const rows = shuffledRows(500);
    const before = [...rows];
    const sorted = await new KeyOrder().inOrder(rows);
    assertInKeyOrder(sorted, rows);
    assert.deepEqual(rows, before);
    assert.equal(sorted[0]?.platform, 'bluesky');
  });

  it('sorts a large import fed in pieces on a worker thread, keys that prefix others first', async () => {
    const rows = shuffledRows(130_000);
    rows.push({ platform: 'x', key: 'ab', line: 1 }, { platform: 'x', key: 'a', line: 0 });
    const order = new KeyOrder();
    const growing: Row[] = [];
    for (let start = 0; start < rows.length; start += 7_000) {
      growing.push(...rows.slice(start, start + 7_000));
      order.feed(growing); // as the CSV reader calls it between chunks
    }
    const sorted = await order.inOrder(growing);
    assertInKeyOrder(sorted, rows);
    const a = sorted.findIndex((row) => row.key === 'a');
    assert.equal(sorted[a + 1]?.key, 'ab');
  });

  it('sorts a large import given at once, and can be abandoned while feeding', async () => {
    const rows = shuffledRows(60_000);
    assertInKeyOrder(await new KeyOrder().inOrder(rows), rows);
    const abandoned = new KeyOrder();
    abandoned.feed(rows);
    abandoned.abandon();
  });

  it('sorts every row when asked after it was abandoned (an import written off its write thread after all)', async () => {
    const rows = shuffledRows(120_000);
    const order = new KeyOrder();
    order.feed(rows.slice(0, 100_000));
    order.abandon();
    assertInKeyOrder(await order.inOrder(rows), rows);
  });
});
