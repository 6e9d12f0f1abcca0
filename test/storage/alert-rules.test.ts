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
  tagsOfAccounts,
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
        .inScope({ id, platform, tags })
        .map((r) => r.id)
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

  it("reads the batch's tags by account", async (t) => {
    const [store] = await freshStores(t);
    assert.ok(store);
    const tagRow = (id: number, tag: string) => ({
      account_id: id,
      tag,
      platform: 'x',
      status: 'active',
      username_key: `u${id}`,
      sort_followers: 0,
      sort_growth: 0,
      sort_checked: 0,
    });
    await store.db
      .insertInto('account_tags')
      .values([tagRow(1, 'news'), tagRow(1, 'sport'), tagRow(2, 'sport')])
      .execute();
    const tags = await tagsOfAccounts(store.db, [1, 2, 3]);
    assert.deepEqual(tags.get(1)?.sort(), ['news', 'sport']);
    assert.deepEqual(tags.get(2), ['sport']);
    assert.equal(tags.has(3), false);
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
