// Every writer of an account's status, name, sort values, tags or tracking keeps its tag rows and
// the counts in step, in its own transaction, on both stores: imports (new, reactivated, tags
// added), the tracker's checks (first checks, a suspension, a rename, new follower counts), an
// admin's pause, resume and new tags, untracking and purging. After each, what is kept equals
// what a walk of the accounts table gives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateAccount, untrackAccount, type AccountChange } from '../../src/storage/accounts-repo.ts';
import type { Store } from '../../src/storage/store.ts';
import { trackerWorld } from '../helpers/tracker.ts';

const HOUR = 3_600_000;

/** The tag rows and counts the accounts table implies, beside those kept. */
async function assertKept(store: Store, step: string): Promise<void> {
  const accounts = await store.db.selectFrom('accounts').selectAll().where('untracked_at', 'is', null).execute();
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const rows: string[] = [];
  for (const a of accounts) {
    add(`|${a.platform}|${a.status}`);
    for (const tag of JSON.parse(a.tags) as string[]) {
      add(`${tag}|${a.platform}|${a.status}`);
      const sorts = [a.followers ?? -1, a.followers_change_7d ?? -9007199254740991, a.last_checked_at ?? 0];
      rows.push(JSON.stringify([a.id, tag, a.platform, a.status, a.username_key, ...sorts.map(Number)]));
    }
  }
  const keptCounts = await store.db.selectFrom('account_counts').selectAll().where('n', '<>', 0).execute();
  assert.deepEqual(
    Object.fromEntries(keptCounts.map((c) => [`${c.tag}|${c.platform}|${c.status}`, Number(c.n)])),
    Object.fromEntries(counts),
    `counts after ${step}`,
  );
  const keptRows = await store.db.selectFrom('account_tags').selectAll().execute();
  assert.deepEqual(
    keptRows
      .map((r) =>
        JSON.stringify([
          Number(r.account_id),
          r.tag,
          r.platform,
          r.status,
          r.username_key,
          Number(r.sort_followers),
          Number(r.sort_growth),
          Number(r.sort_checked),
        ]),
      )
      .sort(),
    rows.sort(),
    `tag rows after ${step}`,
  );
}

test('imports, checks, admin changes, untracking and purging keep the tag rows and the counts', async (t) => {
  const w = await trackerWorld(t);
  const { store } = w;
  const ids = {
    a: w.x.addUser({ username: 'alpha', followers: 100 }).id,
    b: w.x.addUser({ username: 'bravo', followers: 200 }).id,
    d: w.x.addUser({ username: 'delta', followers: 300 }).id,
    e: w.x.addUser({ username: 'echo', followers: 400 }).id,
  };
  w.x.addUser({ username: 'charlie', followers: 50 });
  w.bsky.addUser({ handle: 'fox.bsky.social', followers: 7 });
  await w.importCsv(
    'username,tags\nalpha,vip\nbravo,vip;press\ncharlie,\ndelta,press\necho,vip\nfox.bsky.social,vip\n',
  );
  await assertKept(store, 'an import of new accounts');

  const tracker = w.tracker();
  await tracker.tick();
  await assertKept(store, 'the first checks');

  w.x.suspend(ids.d);
  w.x.rename(ids.e, 'echo2');
  w.x.updateUser(ids.a, { followers: 150 });
  w.clock.advance(HOUR);
  await tracker.tick();
  assert.equal((await w.account('x', 'delta')).status, 'suspended');
  assert.equal((await w.account('x', 'echo2')).username, 'echo2');
  await assertKept(store, 'a suspension, a rename and new follower counts');

  const change = (key: string, c: AccountChange) =>
    store.db.transaction().execute((trx) => updateAccount(trx, store.caps, { platform: 'x', key }, c, w.clock.now()));
  await change('bravo', { paused: true });
  await assertKept(store, 'a pause');
  await change('bravo', { paused: false, tags: ['press', 'back'] });
  await assertKept(store, 'a resume with new tags');
  await change('charlie', { tags: ['new'] });
  await assertKept(store, 'tags set on an untagged account');

  const untrack = (key: string, purge: boolean) =>
    store.db
      .transaction()
      .execute((trx) => untrackAccount(trx, store.caps, { platform: 'x', key }, purge, w.clock.now()));
  assert.ok(await untrack('alpha', false));
  await assertKept(store, 'untracking');
  await w.importCsv('username,tags\nalpha,returning\ncharlie,vip\ngolf,fresh\n');
  await assertKept(store, 'an import reactivating one account, tagging another and adding a third');

  assert.ok(await untrack('bravo', true));
  assert.ok(await untrack('alpha', true));
  await assertKept(store, 'purges');
  w.clock.advance(HOUR);
  await tracker.tick();
  await assertKept(store, 'checks after all of it');
});
