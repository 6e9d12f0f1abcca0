// The pure event rules: which events one check produces from the account before and after it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decideCheckEvents,
  subscriptionMatches,
  type CheckAfter,
  type CheckBefore,
  type EventMarks,
} from '../../src/domain/events.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const rules = { spikePercent: 10 };
const before = (patch: Partial<CheckBefore> = {}): CheckBefore => ({
  accountId: 7,
  publicId: 'acc_7',
  platform: 'x',
  username: 'jack',
  platformUserId: '12',
  status: 'active',
  ...patch,
});
const after = (patch: Partial<CheckAfter> = {}): CheckAfter => ({
  status: 'active',
  statusReason: null,
  username: 'jack',
  platformUserId: '12',
  followers: 500,
  renamedFrom: null,
  ...patch,
});
const types = (result: { events: { type: string }[] }) => result.events.map((e) => e.type);

/** Runs checks in order, carrying the marks, and returns every event with its time. */
function run(followersOverTime: [number, number][]) {
  let marks: EventMarks | null = null;
  const events: { at: number; type: string; data: Record<string, unknown> }[] = [];
  for (const [at, followers] of followersOverTime) {
    const result = decideCheckEvents(before(), after({ followers }), marks, at, rules);
    marks = result.marks;
    for (const e of result.events) events.push({ at, type: e.type, data: e.data });
  }
  return events;
}

test('a first successful check announces checked_first, and only from pending', () => {
  assert.deepEqual(types(decideCheckEvents(before({ status: 'pending' }), after(), null, T0, rules)), [
    'account.checked_first',
  ]);
  // A first check that did not see the account (a platform error) is not the first check yet.
  assert.deepEqual(
    types(
      decideCheckEvents(before({ status: 'pending' }), after({ status: 'pending', followers: null }), null, T0, rules),
    ),
    [],
  );
  // pending → not_found is a first check that found nothing: no status change from pending.
  assert.deepEqual(
    types(
      decideCheckEvents(
        before({ status: 'pending' }),
        after({ status: 'not_found', followers: null }),
        null,
        T0,
        rules,
      ),
    ),
    [],
  );
});

test('status changes between tracked states are announced with from, to and reason; paused and pending are not', () => {
  const result = decideCheckEvents(
    before(),
    after({ status: 'suspended', statusReason: 'User has been suspended', followers: null }),
    null,
    T0,
    rules,
  );
  assert.deepEqual(
    result.events.map((e) => [e.type, e.data]),
    [['account.status_changed', { from: 'active', to: 'suspended', reason: 'User has been suspended' }]],
  );
  assert.deepEqual(result.events[0]?.account, { id: 'acc_7', platform: 'x', username: 'jack', platformUserId: '12' });
  assert.deepEqual(types(decideCheckEvents(before({ status: 'paused' }), after(), null, T0, rules)), []);
  assert.deepEqual(types(decideCheckEvents(before({ status: 'error' }), after(), null, T0, rules)), [
    'account.status_changed',
  ]);
  assert.deepEqual(types(decideCheckEvents(before(), after(), null, T0, rules)), []);
});

test('a rename is announced with both names, and the account carries the new one', () => {
  const result = decideCheckEvents(before(), after({ username: 'jack2', renamedFrom: 'jack' }), null, T0, rules);
  assert.deepEqual(
    result.events.map((e) => [e.type, e.data, e.account?.username]),
    [['account.renamed', { from: 'jack', to: 'jack2' }, 'jack2']],
  );
});

test('milestones: the first observation is the baseline; each milestone once, several at one jump', () => {
  const events = run([
    [T0, 950], // baseline: 100 is behind it, not announced
    [T0 + HOUR, 990],
    [T0 + 2 * HOUR, 1_005], // crosses 1k
    [T0 + 3 * HOUR, 995], // falls back under
    [T0 + 4 * HOUR, 1_010], // crosses again: not announced twice
    [T0 + 30 * 24 * HOUR, 120_000], // crosses 10k and 100k in one check
  ]).filter((e) => e.type === 'account.followers_milestone');
  assert.deepEqual(
    events.map((e) => e.data.milestone),
    [1_000, 10_000, 100_000],
  );
  assert.equal(events[0]?.data.followers, 1_005);
});

test('spikes: at least 10 % and 100 within 24 h, at most once per account per 24 h, rises and falls', () => {
  const spikes = (series: [number, number][]) => run(series).filter((e) => e.type === 'account.followers_spike');
  // 10 % but under 100 followers: no spike.
  assert.equal(
    spikes([
      [T0, 500],
      [T0 + HOUR, 560],
    ]).length,
    0,
  );
  // 100 but under 10 %: no spike.
  assert.equal(
    spikes([
      [T0, 5_000],
      [T0 + HOUR, 5_400],
    ]).length,
    0,
  );
  // Exactly 10 % and 100 within 6 h: a spike, with its measure.
  const one = spikes([
    [T0, 1_000],
    [T0 + 6 * HOUR, 1_100],
  ]);
  assert.deepEqual(
    one.map((e) => [e.data.change, e.data.percent, e.data.windowHours, e.data.followers]),
    [[100, 10, 6, 1_100]],
  );
  // The same move spread over more than 24 h: no spike.
  assert.equal(
    spikes([
      [T0, 1_000],
      [T0 + 25 * HOUR, 1_100],
    ]).length,
    0,
  );
  // A fall counts too.
  assert.deepEqual(
    spikes([
      [T0, 2_000],
      [T0 + HOUR, 1_700],
    ]).map((e) => e.data.change),
    [-300],
  );
  // Growth that goes on: once, then again only 24 h after the first.
  const series: [number, number][] = [];
  for (let h = 0; h <= 30; h++) series.push([T0 + h * HOUR, 1_000 + h * 200]);
  assert.deepEqual(
    spikes(series).map((e) => (e.at - T0) / HOUR),
    [1, 25],
  );
});

test('subscriptions: types or *, tags limit to accounts with one of them, webhook.test never fans out', () => {
  assert.equal(subscriptionMatches({ events: ['*'], tags: [] }, 'account.renamed', []), true);
  assert.equal(subscriptionMatches({ events: ['account.renamed'], tags: [] }, 'import.completed', null), false);
  assert.equal(subscriptionMatches({ events: ['*'], tags: ['vip'] }, 'account.renamed', ['vip', 'x']), true);
  assert.equal(subscriptionMatches({ events: ['*'], tags: ['vip'] }, 'account.renamed', ['other']), false);
  assert.equal(subscriptionMatches({ events: ['*'], tags: ['vip'] }, 'import.completed', null), false);
  assert.equal(subscriptionMatches({ events: ['*'], tags: [] }, 'webhook.test', null), false);
});
