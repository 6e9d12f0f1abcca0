// Leases belong to one claim: a batch that outlived its lease cannot write over the claim that
// took its accounts over, even when both claims come from the same tracker.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimDueAccounts, releaseTrackerLeases } from '../../src/storage/leases-repo.ts';
import { writeCheck } from '../../src/storage/tracking-repo.ts';
import { trackerWorld } from '../helpers/tracker.ts';

test('a stale claim loses its write to the claim that took over; shutdown releases every claim of the tracker', async (t) => {
  const w = await trackerWorld(t);
  await w.importCsv('username\njack\njill\n');
  const claim = (owner: string) =>
    claimDueAccounts(w.store.db, w.store.caps, {
      platform: 'x',
      resolved: false,
      owner,
      now: w.clock.now(),
      leaseMs: 1_000,
      limit: 10,
    });
  const first = await claim('tracker-a/1');
  assert.equal(first.length, 2);
  assert.equal((await claim('tracker-a/2')).length, 0, 'leased accounts are not claimed twice');

  w.clock.advance(2_000);
  const second = await claim('tracker-a/2');
  assert.equal(second.length, 2, 'an expired lease is claimed again');
  const write = {
    id: first[0]!.id,
    status: 'active' as const,
    nextCheckAt: w.clock.now() + 3_600_000,
    claimedDueAt: second[0]!.dueAt,
    claimedStatus: second[0]!.status,
    consecutiveFailures: 0,
    lastError: null,
  };
  assert.equal(
    await writeCheck(w.store.db, 'tracker-a/1', write, w.clock.now()),
    false,
    'the stale claim cannot write',
  );
  assert.equal(await writeCheck(w.store.db, 'tracker-a/2', write, w.clock.now()), true);

  // The other account is still leased by claim 2; a tracker named like a prefix is not touched.
  assert.equal(await releaseTrackerLeases(w.store.db, 'tracker-'), 0);
  assert.equal(await releaseTrackerLeases(w.store.db, 'tracker-a'), 1);
  const leased = await w.store.db
    .selectFrom('accounts')
    .select('lease_owner')
    .where('lease_owner', 'is not', null)
    .execute();
  assert.deepEqual(leased, []);
});
