// The event log's filters on both stores, against a log of 6,000 events: each filter (type,
// platform, username) alone and combined answers what a walk of the whole log answers, a rare
// event at the far end on the first page; a filter matching nothing answers an empty page;
// the newest page of a filter holds its last matches; paging a filter visits every match once, in order, while events are added between pages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventType, NewEvent } from '../../src/domain/events.ts';
import type { Platform } from '../../src/domain/platforms.ts';
import { listEvents, type EventQuery } from '../../src/storage/events-list.ts';
import { recordEvents } from '../../src/storage/events-repo.ts';
import { freshStores } from '../helpers/store-url.ts';

const event = (type: EventType, platform: Platform | null, username: string): NewEvent => ({
  type,
  accountId: platform === null ? null : 1,
  account: platform === null ? null : { id: 'acc_1', platform, username, platformUserId: null },
  data: {},
});

test('filtered event pages come from the indexes and end only at the end', { timeout: 120_000 }, async (t) => {
  const [store] = await freshStores(t);
  const write = (events: NewEvent[]) =>
    store!.db.transaction().execute((trx) => recordEvents(trx, store!.caps, events, 1));
  await write([event('account.renamed', 'x', 'first')]);
  for (let chunk = 0; chunk < 6; chunk += 1)
    await write(
      Array.from({ length: 1_000 }, (_, i) =>
        i % 50 === 7 ? event('import.completed', null, '') : event('account.checked_first', 'x', `u${i % 300}`),
      ),
    );
  await write([event('account.status_changed', 'bluesky', 'rare.bsky.social')]);
  await write([event('account.checked_first', 'bluesky', 'rare.bsky.social')]);

  const all = await store!.db
    .selectFrom('events')
    .select(['seq', 'type', 'platform', 'username_key'])
    .orderBy('seq')
    .execute();
  const expected = (q: Omit<EventQuery, 'after' | 'limit'>, after = 0) =>
    all
      .filter(
        (e) =>
          Number(e.seq) > after &&
          (q.types === undefined || q.types.includes(e.type)) &&
          (q.platform === undefined || e.platform === q.platform) &&
          (q.usernameKey === undefined || e.username_key === q.usernameKey),
      )
      .map((e) => Number(e.seq));
  const page = async (q: Omit<EventQuery, 'after' | 'limit'>, limit: number, after = 0) =>
    (await listEvents(store!.reader, store!.caps, { ...q, after, limit })).map((e) => e.seq);

  const filters: Omit<EventQuery, 'after' | 'limit'>[] = [
    { types: ['account.status_changed'] },
    { types: ['account.renamed', 'account.status_changed'] },
    { types: ['import.completed'] },
    { platform: 'bluesky' },
    { platform: 'x', types: ['account.renamed'] },
    { usernameKey: 'rare.bsky.social' },
    { usernameKey: 'rare.bsky.social', platform: 'bluesky', types: ['account.checked_first'] },
    { usernameKey: 'u7', types: ['account.checked_first'] },
    { types: ['webhook.test'] },
    { usernameKey: 'nobody' },
    { usernameKey: 'first', platform: 'bluesky' },
  ];
  for (const filter of filters) {
    const label = JSON.stringify(filter);
    assert.deepEqual(await page(filter, 10), expected(filter).slice(0, 10), label);
    const middle = all[3_000]!.seq;
    assert.deepEqual(await page(filter, 10, Number(middle)), expected(filter, Number(middle)).slice(0, 10), label);
  }
  assert.equal((await page({ types: ['account.status_changed'] }, 10)).length, 1, 'the rare one, at the far end');

  // The newest page (the dashboard's latest events): the last matches, still oldest first.
  const newest = async (q: Omit<EventQuery, 'after' | 'limit'>, limit: number) =>
    (await listEvents(store!.reader, store!.caps, { ...q, after: 0, limit, newest: true })).map((e) => e.seq);
  for (const filter of [{}, ...filters]) {
    assert.deepEqual(await newest(filter, 10), expected(filter).slice(-10), `newest ${JSON.stringify(filter)}`);
  }

  const filter = { types: ['account.checked_first'], platform: 'x' };
  const before = expected(filter);
  const seen: number[] = [];
  let after = 0;
  for (;;) {
    const got = await page(filter, 333, after);
    seen.push(...got);
    // A short page means nothing newer matched when it was read: the poller has caught up.
    if (got.length < 333) break;
    after = got.at(-1)!;
    await write([event('account.checked_first', 'x', 'new'), event('import.completed', null, '')]);
  }
  assert.deepEqual(seen.slice(0, before.length), before, 'every match once, in order');
  assert.deepEqual(
    seen,
    [...seen].sort((a, b) => a - b),
  );
});
