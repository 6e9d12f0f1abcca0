// Unit tests for alert rules: the checks that refuse bad rules field by field, the scope index
// rows, and each condition's decision, the anomaly's against quiet and steady baselines.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkAlertRule, scopeKeys, scopeMatches, type AlertRuleDefinition } from '../../src/domain/alert-rules.ts';
import { evaluateCondition, type AlertSubject } from '../../src/domain/alert-conditions.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 3, 12);
const fieldsOf = (input: unknown, base?: AlertRuleDefinition) => {
  const checked = checkAlertRule(input, base);
  return checked.ok ? [] : checked.errors.map((e) => e.field);
};
const good = { name: 'Big jumps', metric: 'followers', condition: { above: 1000 } };

describe('checkAlertRule', () => {
  it('takes a rule with defaults', () => {
    const checked = checkAlertRule({ ...good, scope: { tags: ['news'], platform: 'x', accounts: ['acc_12'] } });
    assert.ok(checked.ok);
    assert.deepEqual(checked.value, {
      name: 'Big jumps',
      scope: { tags: ['news'], platform: 'x', accounts: [12] },
      metric: 'followers',
      condition: { above: 1000 },
      cooldownMs: DAY,
      recipients: [],
      enabled: true,
    });
  });

  it('names each bad field', () => {
    assert.deepEqual(fieldsOf({ ...good, metric: 'likes' }), ['body/metric']);
    assert.deepEqual(fieldsOf({ ...good, condition: { changePercent: 10, windowHours: 0 } }), [
      'body/condition/windowHours',
    ]);
    assert.deepEqual(fieldsOf({ ...good, condition: { changePercent: 0, windowHours: -1 } }), [
      'body/condition/changePercent',
      'body/condition/windowHours',
    ]);
    assert.deepEqual(fieldsOf({ ...good, condition: { anomaly: { sensitivity: 6 } } }), [
      'body/condition/anomaly/sensitivity',
    ]);
    assert.deepEqual(fieldsOf({ ...good, condition: { anomaly: { sensitivity: 2.5 } } }), [
      'body/condition/anomaly/sensitivity',
    ]);
    assert.deepEqual(fieldsOf({ ...good, condition: { above: 1, below: 2 } }), ['body/condition']);
    assert.deepEqual(fieldsOf({ ...good, condition: { quietDays: 3 } }), ['body/metric']);
    assert.deepEqual(fieldsOf({ ...good, metric: 'engagementRate', condition: { anomaly: { sensitivity: 3 } } }), [
      'body/condition',
    ]);
    assert.deepEqual(fieldsOf({ ...good, recipients: ['ada@example.com', 'not an address', 'a@b'] }), [
      'body/recipients/1',
      'body/recipients/2',
    ]);
    assert.deepEqual(fieldsOf({ ...good, cooldown: 'soon' }), ['body/cooldown']);
    assert.deepEqual(fieldsOf({ ...good, scope: { accounts: ['12'], platform: 'mastodon' } }), [
      'body/scope/platform',
      'body/scope/accounts/0',
    ]);
    assert.deepEqual(fieldsOf({ ...good, colour: 'red' }), ['body/colour']);
    assert.deepEqual(fieldsOf({ metric: 'followers' }), ['body/name', 'body/condition']);
  });

  it('applies a change to the stored rule', () => {
    const base = checkAlertRule(good);
    assert.ok(base.ok);
    const changed = checkAlertRule({ cooldown: '2h', recipients: ['ada@example.com'] }, base.value);
    assert.ok(changed.ok);
    assert.equal(changed.value.cooldownMs, 2 * 3_600_000);
    assert.deepEqual(changed.value.condition, { above: 1000 });
    assert.deepEqual(fieldsOf({ condition: { quietDays: 2 } }, base.value), ['body/metric']);
  });
});

describe('scope', () => {
  it('indexes the narrowest dimension and matches every one', () => {
    assert.deepEqual(scopeKeys({ tags: ['a'], platform: 'x', accounts: [3] }), [{ kind: 'account', value: '3' }]);
    assert.deepEqual(scopeKeys({ tags: ['a', 'b'], platform: 'x' }), [
      { kind: 'tag', value: 'a' },
      { kind: 'tag', value: 'b' },
    ]);
    assert.deepEqual(scopeKeys({}), [{ kind: 'all', value: '' }]);
    const account = { id: 3, platform: 'x', tags: ['b'] };
    assert.equal(scopeMatches({ tags: ['a', 'b'], platform: 'x' }, account), true);
    assert.equal(scopeMatches({ tags: ['a'], platform: 'x' }, account), false);
    assert.equal(scopeMatches({ platform: 'bluesky' }, account), false);
    assert.equal(scopeMatches({ accounts: [4] }, account), false);
  });
});

describe('evaluateCondition', () => {
  const subject = (
    values: AlertSubject['values'],
    history: AlertSubject['history'] = {},
    lastPostAt: number | null = null,
  ) => ({
    values,
    history,
    lastPostAt,
  });

  it('levels', () => {
    assert.deepEqual(evaluateCondition('followers', { above: 100 }, subject({ followers: 101 }), NOW), {
      metric: 'followers',
      value: 101,
      threshold: 100,
    });
    assert.equal(evaluateCondition('followers', { above: 100 }, subject({ followers: 100 }), NOW), null);
    assert.ok(evaluateCondition('engagementRate', { below: 1 }, subject({ engagementRate: 0.5 }), NOW));
    assert.equal(evaluateCondition('engagementRate', { below: 1 }, subject({ engagementRate: null }), NOW), null);
  });

  it('a change over a window, up or down', () => {
    const history = {
      followers: [
        [NOW - 25 * 3_600_000, 1000],
        [NOW - 23 * 3_600_000, 5000],
      ] as [number, number][],
    };
    const up = evaluateCondition(
      'followers',
      { changePercent: 10, windowHours: 24 },
      subject({ followers: 1100 }, history),
      NOW,
    );
    assert.equal(up?.changePercent, 10);
    assert.equal(up?.baseline, 1000);
    assert.equal(
      evaluateCondition(
        'followers',
        { changePercent: 10, windowHours: 24 },
        subject({ followers: 1099 }, history),
        NOW,
      ),
      null,
    );
    assert.ok(
      evaluateCondition('followers', { changePercent: -5, windowHours: 24 }, subject({ followers: 900 }, history), NOW),
    );
    assert.equal(
      evaluateCondition(
        'followers',
        { changePercent: -5, windowHours: 24 },
        subject({ followers: 1100 }, history),
        NOW,
      ),
      null,
    );
    assert.equal(
      evaluateCondition(
        'followers',
        { changePercent: 10, windowHours: 48 },
        subject({ followers: 9000 }, history),
        NOW,
      ),
      null,
    );
  });

  it('an anomaly is a spike against a quiet baseline, not steady growth', () => {
    const days = (f: (i: number) => number) =>
      Array.from({ length: 31 }, (_, i) => [NOW - (31 - i) * DAY, f(i)] as [number, number]);
    const quiet = { followers: days((i) => 1000 + (i % 2)) };
    const anomaly = { anomaly: { sensitivity: 3 } };
    const spike = evaluateCondition('followers', anomaly, subject({ followers: 1400 }, quiet), NOW);
    assert.ok(spike);
    assert.equal(spike.change, 400);
    assert.equal(evaluateCondition('followers', anomaly, subject({ followers: 1002 }, quiet), NOW), null);
    const steady = { followers: days((i) => 1000 + 50 * i + (i % 3)) };
    assert.equal(
      evaluateCondition('followers', anomaly, subject({ followers: 1000 + 50 * 31 + 1 }, steady), NOW),
      null,
    );
    // Higher sensitivity fires earlier on the same day.
    const noisy = { followers: days((i) => 1000 + 10 * i + (i % 2 === 0 ? 0 : 6)) };
    const value = 1000 + 10 * 30 + 6 + 22;
    assert.equal(
      evaluateCondition('followers', { anomaly: { sensitivity: 1 } }, subject({ followers: value }, noisy), NOW),
      null,
    );
    assert.ok(
      evaluateCondition('followers', { anomaly: { sensitivity: 5 } }, subject({ followers: value }, noisy), NOW),
    );
    // Too little history says nothing.
    const short = { followers: days(() => 1000).slice(-5) };
    assert.equal(evaluateCondition('followers', anomaly, subject({ followers: 9000 }, short), NOW), null);
  });

  it('quiet days', () => {
    const quiet = { quietDays: 3 };
    assert.deepEqual(evaluateCondition('posts', quiet, subject({ posts: 5 }, {}, NOW - 4 * DAY), NOW), {
      metric: 'posts',
      value: 4,
      threshold: 3,
    });
    assert.equal(evaluateCondition('posts', quiet, subject({ posts: 5 }, {}, NOW - 2 * DAY), NOW), null);
    assert.equal(evaluateCondition('posts', quiet, subject({ posts: 0 }), NOW), null);
  });
});
