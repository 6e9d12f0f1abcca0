// The alert rules' storage on both stores: a rule is found for a batch only through its scope
// index (tag, platform, account or every account), follows its changes and leaves with its index
// rows and firings; firings keep one row per rule and account with a count.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAlertRule, type AlertRuleDefinition } from '../../src/domain/alert-rules.ts';
import { lastFirings, recentFirings, recordFirings, firingKey } from '../../src/storage/alert-firings-repo.ts';
import {
  deleteAlertRule,
  findAlertRule,
  insertAlertRule,
  rulesForBatch,
  updateAlertRule,
} from '../../src/storage/alert-rules-repo.ts';
import { dialectName, freshStores } from '../helpers/store-url.ts';

const rule = (input: Record<string, unknown>): AlertRuleDefinition => {
  const checked = checkAlertRule({ name: 'r', metric: 'followers', condition: { above: 1 }, ...input });
  assert.ok(checked.ok);
  return checked.value;
};

describe(`alert rules storage (${dialectName})`, () => {
  it('finds rules for a batch through the scope index only', async (t) => {
    const [store] = await freshStores(t);
    assert.ok(store);
    const db = store.db;
    await db
      .insertInto('account_tags')
      .values(
        [
          [1, 'news'],
          [2, 'sport'],
        ].map(([id, tag]) => ({
          account_id: Number(id),
          tag: String(tag),
          platform: 'x',
          status: 'active',
          username_key: `u${id}`,
          sort_followers: 0,
          sort_growth: 0,
          sort_checked: 0,
        })),
      )
      .execute();
    const add = (id: string, scope: Record<string, unknown>) =>
      insertAlertRule(db, { id, definition: rule({ scope }), createdAt: 1, updatedAt: 1 });
    await add('alr_all', {});
    await add('alr_x', { platform: 'x' });
    await add('alr_bsky', { platform: 'bluesky' });
    await add('alr_news', { tags: ['news'], platform: 'x' });
    await add('alr_other', { tags: ['other'] });
    await add('alr_acc3', { accounts: ['acc_3'] });
    const ids = async (accounts: number[], platform = 'x') =>
      (await rulesForBatch(db, platform, accounts)).rules.map((r) => r.id).sort();
    assert.deepEqual(await ids([1]), ['alr_all', 'alr_news', 'alr_x']);
    assert.deepEqual(await ids([2, 3]), ['alr_acc3', 'alr_all', 'alr_x']);
    assert.deepEqual(await ids([4], 'bluesky'), ['alr_all', 'alr_bsky']);
    assert.deepEqual((await rulesForBatch(db, 'x', [1, 2])).tags.get(1), ['news']);

    // A change moves the index; a disabled rule is not found; a deleted one is gone with its rows.
    assert.equal(await updateAlertRule(db, 'alr_other', rule({ scope: { tags: ['sport'] } }), 2), true);
    assert.deepEqual(await ids([2]), ['alr_all', 'alr_other', 'alr_x']);
    assert.equal(await updateAlertRule(db, 'alr_x', rule({ scope: { platform: 'x' }, enabled: false }), 2), true);
    assert.deepEqual(await ids([2]), ['alr_all', 'alr_other']);
    assert.equal(await updateAlertRule(db, 'alr_nope', rule({}), 2), false);
    assert.equal(await deleteAlertRule(db, 'alr_all'), true);
    assert.equal(await deleteAlertRule(db, 'alr_all'), false);
    assert.equal(await findAlertRule(db, 'alr_all'), null);
    assert.deepEqual(await ids([2]), ['alr_other']);
    const scopes = await db
      .selectFrom('alert_rule_scopes')
      .select('rule_id')
      .where('rule_id', '=', 'alr_all')
      .execute();
    assert.equal(scopes.length, 0);
  });

  it('keeps the last firing per rule and account', async (t) => {
    const [store] = await freshStores(t);
    assert.ok(store);
    const db = store.db;
    await recordFirings(db, store.caps, [
      { ruleId: 'alr_a', accountId: 1, firedAt: 10, data: { value: 1 } },
      { ruleId: 'alr_a', accountId: 2, firedAt: 20, data: { value: 2 } },
    ]);
    await recordFirings(db, store.caps, [{ ruleId: 'alr_a', accountId: 1, firedAt: 30, data: { value: 3 } }]);
    const last = await lastFirings(db, ['alr_a', 'alr_b'], [1, 2, 3]);
    assert.equal(last.get(firingKey('alr_a', 1)), 30);
    assert.equal(last.get(firingKey('alr_a', 2)), 20);
    assert.equal(last.size, 2);
    const recent = await recentFirings(db, 'alr_a', 10);
    assert.deepEqual(
      recent.map((f) => [f.accountId, f.firedAt, f.count, f.data.value]),
      [
        [1, 30, 2, 3],
        [2, 20, 1, 2],
      ],
    );
  });
});
