// Lookups asked in one turn of the event loop share one load; more than `max` are split; a failed
// load fails each lookup of it, and the next turn starts afresh.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CoalescedLookups } from '../../src/storage/coalesced-lookups.ts';

test('lookups of one turn share a load, in order, at most max at a time', async () => {
  const loads: number[][] = [];
  const lookups = new CoalescedLookups<number, string>(async (keys) => {
    loads.push([...keys]);
    return keys.map((k) => `v${k}`);
  }, 4);
  const values = await Promise.all([1, 2, 3, 4, 5, 6].map((k) => lookups.get(k)));
  assert.deepEqual(values, ['v1', 'v2', 'v3', 'v4', 'v5', 'v6']);
  assert.deepEqual(loads, [
    [1, 2, 3, 4],
    [5, 6],
  ]);
  assert.equal(await lookups.get(7), 'v7');
  assert.deepEqual(loads.at(-1), [7], 'a later turn is a load of its own');
});

test('a failed load fails every lookup in it, and the next turn loads again', async () => {
  let fail = true;
  const lookups = new CoalescedLookups<number, number>(async (keys) => {
    if (fail) throw new Error('store down');
    return keys.map((k) => k * 2);
  }, 10);
  const results = await Promise.allSettled([lookups.get(1), lookups.get(2)]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  fail = false;
  assert.equal(await lookups.get(3), 6);
});

test('a load that throws before returning a promise fails its lookups instead of the process', async () => {
  const lookups = new CoalescedLookups<number, number>(() => {
    throw new Error('refused at once');
  }, 10);
  await assert.rejects(lookups.get(1), /refused at once/);
});
