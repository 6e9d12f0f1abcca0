// The baseline an alert window compares with, on both stores: for each account asked, the latest
// snapshot observed within the span before the window's start, however many accounts are asked at
// once, skipping a later observation that shares the span's last bucket, and nothing for an account
// without one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { latestSnapshotsIn } from '../../src/storage/alert-history-repo.ts';
import { upsertSnapshots } from '../../src/storage/history-repo.ts';
import { dialectName, freshStores } from '../helpers/store-url.ts';

const HOUR = 3_600_000;

describe(`alert window baselines (${dialectName})`, () => {
  it('finds the latest snapshot in the span for each account asked, and none where there is none', async (t) => {
    const [store] = await freshStores(t);
    assert.ok(store);
    const count = 70; // more than a shape of 64: the ids are padded to 128
    const ids: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const row = await store.db
        .insertInto('accounts')
        .values({
          platform: 'x',
          username: `u${i}`,
          username_key: `u${i}`,
          tracked_since: 0,
          created_at: 0,
          updated_at: 0,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(Number(row.id));
    }
    // Hourly buckets 0..9 h; the span asked is [5 h, 7.5 h], so buckets from 4 h to 7 h are read.
    const from = 5 * HOUR;
    const to = 7.5 * HOUR;
    const snapshot = (accountId: number, observedAt: number, followers: number) => ({
      accountId,
      bucket: Math.floor(observedAt / HOUR) * HOUR,
      observedAt,
      followers,
      following: followers + 1,
      posts: followers + 2,
      listed: 0,
    });
    const rows = ids.flatMap((id, i) => {
      if (i % 7 === 6) return []; // no snapshot at all
      if (i % 7 === 5) return [snapshot(id, 2 * HOUR, 1), snapshot(id, 9 * HOUR, 2)]; // none in the span
      // Every hour; in the bucket of 7 h the observation is at 7.8 h, after the span's end.
      return Array.from({ length: 10 }, (_, h) => snapshot(id, h === 7 ? 7.8 * HOUR : h * HOUR + 60_000, 100 * i + h));
    });
    await upsertSnapshots(store.db, store.caps, rows);

    const asked = [...ids, ids[0] ?? 0]; // one account asked twice
    const found = await latestSnapshotsIn(store.db, asked, from, to, HOUR);
    const expected = new Map(
      ids.flatMap((id, i) =>
        i % 7 >= 5
          ? []
          : [
              [
                id,
                { observedAt: 6 * HOUR + 60_000, followers: 100 * i + 6, following: 100 * i + 7, posts: 100 * i + 8 },
              ],
            ],
      ),
    );
    assert.deepEqual(found, expected);
    assert.deepEqual(await latestSnapshotsIn(store.db, [], from, to, HOUR), new Map());
  });
});
