// The alert rules' storage on both stores: a tracker's rule book finds an account's rules by scope
// (tag, platform, account or every account) and follows every change to them through the rules'
// version, whoever makes it; firings keep one row per rule and account with a count.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, it } from 'node:test';
import { checkAlertRule, type AlertRuleDefinition } from '../../src/domain/alert-rules.ts';
import { lastFirings, recentFirings, recordFirings, firingKey } from '../../src/storage/alert-firings-repo.ts';
import {
  alertRulesVersion,
  deleteAlertRule,
  findAlertRule,
  insertAlertRule,
  updateAlertRule,
} from '../../src/storage/alert-rules-repo.ts';
import { AlertRuleBook } from '../../src/tracker/alert-rulebook.ts';
import { dialectName, freshStores } from '../helpers/store-url.ts';

const rule = (input: Record<string, unknown>): AlertRuleDefinition => {
  const checked = checkAlertRule({ name: 'r', metric: 'followers', condition: { above: 1 }, ...input });
  assert.ok(checked.ok);
  return checked.value;
};

describe(`alert rules storage (${dialectName})`, () => {
  it("gives a tracker each account's rules by scope, and follows every change to them, whoever writes it", async (t) => {
    const [store] = await freshStores(t);
    assert.ok(store);
    const db = store.db;
    const add = (id: string, scope: Record<string, unknown>) =>
      insertAlertRule(db, { id, definition: rule({ scope }), createdAt: 1, updatedAt: 1 });
    await add('alr_all', {});
    await add('alr_x', { platform: 'x' });
    await add('alr_bsky', { platform: 'bluesky' });
    await add('alr_news', { tags: ['news'], platform: 'x' });
    await add('alr_two', { tags: ['news', 'sport'] });
    await add('alr_other', { tags: ['other'] });
    await add('alr_acc3', { accounts: ['acc_3'] });
    const book = new AlertRuleBook(pino({ level: 'silent' }));
    const ids = async (id: number, tags: string[], platform = 'x') =>
      (await book.current(db))
        .planFor({ id, platform, tags })
        .questions.flatMap((q) => q.rules.map((r) => r.id))
        .sort();
    assert.deepEqual(await ids(1, ['news', 'sport']), ['alr_all', 'alr_news', 'alr_two', 'alr_x']);
    assert.deepEqual(await ids(3, []), ['alr_acc3', 'alr_all', 'alr_x']);
    assert.deepEqual(await ids(4, ['news'], 'bluesky'), ['alr_all', 'alr_bsky', 'alr_two']);
    assert.equal((await book.current(db)).byTags, true);
    // Nothing changed: the same rules, not read again.
    const held = await book.current(db);
    assert.equal(await book.current(db), held);

    // Every change moves the version, through the repository or any other statement.
    const version = await alertRulesVersion(db);
    assert.equal(await updateAlertRule(db, 'alr_other', rule({ scope: { tags: ['sport'] } }), 2), true);
    assert.ok((await alertRulesVersion(db)) > version);
    assert.notEqual(await book.current(db), held);
    assert.deepEqual(await ids(2, ['sport']), ['alr_all', 'alr_other', 'alr_two', 'alr_x']);
    assert.equal(await updateAlertRule(db, 'alr_x', rule({ scope: { platform: 'x' }, enabled: false }), 2), true);
    assert.deepEqual(await ids(2, ['sport']), ['alr_all', 'alr_other', 'alr_two']);
    assert.equal(await updateAlertRule(db, 'alr_nope', rule({}), 2), false);
    assert.equal(await deleteAlertRule(db, 'alr_all'), true);
    assert.equal(await deleteAlertRule(db, 'alr_all'), false);
    assert.equal(await findAlertRule(db, 'alr_all'), null);
    assert.deepEqual(await ids(2, ['sport']), ['alr_other', 'alr_two']);
    await sql`update alert_rules set enabled = 0 where id = 'alr_two'`.execute(db);
    assert.deepEqual(await ids(2, ['sport']), ['alr_other']);
    await sql`delete from alert_rules`.execute(db);
    assert.deepEqual(await ids(2, ['sport']), []);
    assert.equal((await book.current(db)).byTags, false);
  });

  it('asks each question once per account, and shares the plan of accounts alike unless a rule names one', async (t) => {
    const [store] = await freshStores(t);
    assert.ok(store);
    const db = store.db;
    const add = (id: string, input: Record<string, unknown>) =>
      insertAlertRule(db, { id, definition: rule(input), createdAt: 1, updatedAt: 1 });
    await add('alr_a', { scope: {}, condition: { above: 10 } });
    await add('alr_b', { scope: { tags: ['news'] }, condition: { above: 10 } });
    await add('alr_c', { scope: { tags: ['news'], platform: 'bluesky' }, condition: { below: 2 } });
    await add('alr_d', { scope: { accounts: ['acc_7'] }, metric: 'posts', condition: { above: 10 } });
    const book = await new AlertRuleBook(pino({ level: 'silent' })).current(db);
    const asked = (plan: ReturnType<typeof book.planFor>) =>
      plan.questions.map((q) => `${q.metric} ${JSON.stringify(q.condition)}: ${q.rules.map((r) => r.id).join(',')}`);

    const one = book.planFor({ id: 1, platform: 'x', tags: ['news'] });
    assert.deepEqual(asked(one), ['followers {"above":10}: alr_a,alr_b']);
    assert.equal(one.rules, 2);
    assert.equal(book.planFor({ id: 2, platform: 'x', tags: ['news'] }), one, 'the same platform and tags: one plan');
    assert.deepEqual(asked(book.planFor({ id: 3, platform: 'bluesky', tags: ['news'] })), [
      'followers {"above":10}: alr_a,alr_b',
      'followers {"below":2}: alr_c',
    ]);
    assert.deepEqual(asked(book.planFor({ id: 4, platform: 'x', tags: [] })), ['followers {"above":10}: alr_a']);
    // A rule naming acc_7 is in its plan only, whatever its tags share with others.
    assert.deepEqual(asked(book.planFor({ id: 7, platform: 'x', tags: ['news'] })), [
      'followers {"above":10}: alr_a,alr_b',
      'posts {"above":10}: alr_d',
    ]);
    assert.equal(book.planFor({ id: 2, platform: 'x', tags: ['news'] }), one);
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
