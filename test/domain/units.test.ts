// Durations shown back in the units configuration is written in: the largest unit that says the
// value exactly, so that what perch prints parses back to the same milliseconds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDuration, parseDuration } from '../../src/domain/units.ts';

test('a duration is shown in the largest unit that says it exactly, and reads back the same', () => {
  const cases: [number, string][] = [
    [3_600_000, '1h'],
    [900_000, '15m'],
    [86_400_000, '1d'],
    [90_000_000, '25h'],
    [45_000, '45s'],
    [1_500, '1500ms'],
  ];
  for (const [ms, text] of cases) {
    assert.equal(formatDuration(ms), text);
    assert.equal(parseDuration(text), ms);
  }
});

test('with daysAboveMs, days appear only above it', () => {
  const twoDays = 2 * 86_400_000;
  assert.equal(formatDuration(86_400_000, { daysAboveMs: twoDays }), '24h');
  assert.equal(formatDuration(twoDays, { daysAboveMs: twoDays }), '48h');
  assert.equal(formatDuration(3 * 86_400_000, { daysAboveMs: twoDays }), '3d');
  assert.equal(formatDuration(1_800_000, { daysAboveMs: twoDays }), '30m');
});
