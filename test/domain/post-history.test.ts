// Tests for the bounded per-post metrics history: which observation fills which checkpoint, that
// nothing is made up, that the bound holds, and that stored histories are read back safely.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CHECKPOINTS,
  likesAt24h,
  parseHistory,
  recordObservation,
  type MetricsSample,
} from '../../src/domain/post-history.ts';

const HOUR = 3_600_000;
const CREATED = Date.UTC(2026, 5, 15, 12, 0, 0);
const TOLERANCE = 2 * HOUR;
const m = (likes: number) => ({ likes, reposts: likes >> 1, replies: 1, quotes: 0 });

describe('recordObservation', () => {
  it('fills each checkpoint with the first observation at or after its age, hourly checks', () => {
    let history: MetricsSample[] = [];
    for (let age = 30 * 60_000; age <= 8 * 24 * HOUR; age += HOUR)
      history = recordObservation(history, CREATED, CREATED + age, m(Math.floor(age / HOUR)), TOLERANCE);
    assert.deepEqual(
      history.map((s) => s.age),
      ['1h', '6h', '24h', '72h', '7d'],
    );
    assert.deepEqual(
      history.map((s) => s.likes),
      [1, 6, 24, 72, 168],
    );
    assert.deepEqual(
      history.map((s) => s.observedAt - CREATED),
      [1.5, 6.5, 24.5, 72.5, 168.5].map((h) => h * HOUR),
    );
  });

  it('makes nothing up: a post first read at 30 h has no 1 h, 6 h or 24 h sample', () => {
    const history = recordObservation([], CREATED, CREATED + 30 * HOUR, m(40), TOLERANCE);
    assert.deepEqual(history, []);
    assert.equal(likesAt24h(history), null);
  });

  it('never overwrites a filled checkpoint and never holds two samples for one', () => {
    const first = recordObservation([], CREATED, CREATED + 24 * HOUR + 60_000, m(10), TOLERANCE);
    const again = recordObservation(first, CREATED, CREATED + 25 * HOUR, m(99), TOLERANCE);
    assert.deepEqual(again, first);
    assert.equal(likesAt24h(again), 10);
  });

  it('stays bounded whatever the observations', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -HOUR, max: 10 * 24 * HOUR }), { maxLength: 300 }), (ages) => {
        let history: MetricsSample[] = [];
        for (const age of ages) history = recordObservation(history, CREATED, CREATED + age, m(1), TOLERANCE);
        assert.ok(history.length <= CHECKPOINTS.length);
        assert.equal(new Set(history.map((s) => s.age)).size, history.length);
      }),
    );
  });
});

describe('parseHistory', () => {
  it('keeps valid samples once per checkpoint, youngest first, and drops the rest', () => {
    const stored = [
      { age: '24h', observedAt: 5, likes: 3, reposts: 0, replies: 0, quotes: 0 },
      { age: '1h', observedAt: 1, likes: 1, reposts: 0, replies: 0, quotes: 0 },
      { age: '24h', observedAt: 9, likes: 7, reposts: 0, replies: 0, quotes: 0 },
      { age: '2h', observedAt: 1, likes: 1, reposts: 0, replies: 0, quotes: 0 },
      { age: '6h', observedAt: 1, likes: -1, reposts: 0, replies: 0, quotes: 0 },
      'junk',
    ];
    assert.deepEqual(
      parseHistory(stored).map((s) => [s.age, s.likes]),
      [
        ['1h', 1],
        ['24h', 3],
      ],
    );
    assert.deepEqual(parseHistory('not a list'), []);
  });
});
