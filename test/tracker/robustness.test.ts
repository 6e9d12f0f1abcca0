// The tracker under what production throws at a batch: a batch slower than its lease keeps its
// accounts, an admin's refresh during a check is not lost, one account whose result cannot be built
// or stored does not fail the others, and errors are stored without control characters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlatformError, type PlatformClient } from '../../src/platforms/types.ts';
import { createXClient } from '../../src/platforms/x.ts';
import { claimDueAccounts } from '../../src/storage/leases-repo.ts';
import { makeDueNow } from '../../src/storage/tracking-repo.ts';
import { trackerWorld, X_TOKEN, type TrackerWorld } from '../helpers/tracker.ts';

const MINUTE = 60_000;

/** The world's X client, with `wrap` around its methods (the real client does the HTTP). */
function xClient(w: TrackerWorld, wrap: (real: PlatformClient) => Partial<PlatformClient>): PlatformClient {
  const real = createXClient({ baseUrl: w.x.url, bearerToken: X_TOKEN, timeoutMs: 2_000, now: w.clock.now });
  return Object.assign(Object.create(real) as PlatformClient, wrap(real));
}

const nextCheckAt = async (w: TrackerWorld, username: string) =>
  Number(
    (
      await w.store.db
        .selectFrom('accounts')
        .select('next_check_at')
        .where('username_key', '=', username)
        .executeTakeFirstOrThrow()
    ).next_check_at,
  );

test('a batch that takes longer than its lease renews it, so no other tracker claims its accounts meanwhile', async (t) => {
  const w = await trackerWorld(t, { env: { TRACK_LEASE: '1m' } });
  const jack = w.x.addUser({ username: 'jack' });
  w.x.addPost(jack.id, { text: 'hello' });
  await w.importCsv('username\njack\n');
  await w.tracker().tick(); // resolved: the next batch looks up by id and reads the timeline
  w.x.addPost(jack.id, { text: 'again' });
  w.clock.advance(61 * MINUTE);

  const stolen: number[] = [];
  const client = xClient(w, (real) => ({
    // Each step of the batch takes 40 s of a 60 s lease: 80 s in all.
    lookupByIds: async (ids, signal) => {
      w.clock.advance(40_000);
      return real.lookupByIds(ids, signal);
    },
    fetchPosts: async (userId, sinceId, limit, signal) => {
      w.clock.advance(40_000);
      // Another tracker tries to claim now, 80 s after the claim: past the lease unless renewed.
      const other = await claimDueAccounts(w.store.db, w.store.caps, {
        platform: 'x',
        resolved: true,
        owner: 'other/1',
        now: w.clock.now(),
        leaseMs: MINUTE,
        limit: 10,
      });
      stolen.push(...other.map((a) => a.id));
      return real.fetchPosts(userId, sinceId, limit, signal);
    },
  }));
  const report = await w.tracker({ clients: [client] }).tick();
  assert.deepEqual(stolen, [], 'the renewed lease kept the account');
  assert.equal(report.checked, 1);
  assert.equal(report.leaseLost, 0);
  const posts = await w.store.db.selectFrom('posts').select('text').orderBy('created_at').execute();
  assert.deepEqual(
    posts.map((p) => p.text),
    ['hello', 'again'],
  );
});

test('an admin refresh requested while the account is being checked is kept, not overwritten by the check', async (t) => {
  const w = await trackerWorld(t);
  w.x.addUser({ username: 'jack' });
  await w.importCsv('username\njack\n');
  const jack = await w.store.db
    .selectFrom('accounts')
    .select('id')
    .where('username_key', '=', 'jack')
    .executeTakeFirstOrThrow();
  let lookups = 0;
  const client = xClient(w, (real) => ({
    lookupByUsernames: async (names, signal) => {
      lookups += 1;
      w.clock.advance(1_000);
      // The admin asks for a refresh while the first check is on its way.
      if (lookups === 1) assert.equal(await makeDueNow(w.store.db, jack.id, w.clock.now()), true);
      return real.lookupByUsernames(names, signal);
    },
    lookupByIds: async (ids, signal) => {
      lookups += 1;
      return real.lookupByIds(ids, signal);
    },
  }));
  const report = await w.tracker({ clients: [client] }).tick();
  assert.equal(lookups, 2, 'the refresh made jack due again once the first check was written');
  assert.equal(report.checked, 2);
  assert.equal(await nextCheckAt(w, 'jack'), w.clock.now() + 3_600_000, 'after the second check, the interval');
});

test('one account whose result cannot be built is a failed check; the rest of its batch is written', async (t) => {
  const w = await trackerWorld(t);
  for (const name of ['ann', 'bob', 'cat']) w.x.addUser({ username: name, followers: 10 });
  await w.importCsv('username\nann\nbob\ncat\n');
  const client = xClient(w, (real) => ({
    lookupByUsernames: async (names, signal) => {
      const result = await real.lookupByUsernames(names, signal);
      const bob = result.value.get('bob');
      if (bob?.kind === 'found') {
        // A profile no code path expects: reading its fields throws.
        const profile = new Proxy(bob.user.profile, {
          ownKeys: () => {
            throw new Error('unreadable profile');
          },
        });
        result.value.set('bob', { ...bob, user: { ...bob.user, profile } });
      }
      return result;
    },
  }));
  const report = await w.tracker({ clients: [client] }).tick();
  assert.equal(report.checked, 3);
  assert.equal((await w.account('x', 'ann')).status, 'active');
  assert.equal((await w.account('x', 'cat')).status, 'active');
  const bob = await w.account('x', 'bob');
  assert.equal(bob.status, 'pending');
  assert.match(bob.tracking.lastError ?? '', /internal error while reading the result: unreadable profile/);
});

test('one account whose values the store refuses is a failed check; the rest of its batch is written', async (t) => {
  const w = await trackerWorld(t);
  for (const name of ['ann', 'bob']) w.x.addUser({ username: name, followers: 10 });
  await w.importCsv('username\nann\nbob\n');
  const client = xClient(w, (real) => ({
    lookupByUsernames: async (names, signal) => {
      const result = await real.lookupByUsernames(names, signal);
      const bob = result.value.get('bob');
      // Beyond a bigint: PostgreSQL refuses the write (SQLite stores it as a real).
      if (bob?.kind === 'found') result.value.set('bob', { ...bob, user: { ...bob.user, followers: 1e30 } });
      return result;
    },
  }));
  const report = await w.tracker({ clients: [client] }).tick();
  assert.equal(report.checked, 2);
  assert.equal((await w.account('x', 'ann')).status, 'active');
  assert.equal((await w.account('x', 'ann')).metrics?.followers, 10);
  const bob = await w.account('x', 'bob');
  assert.ok(
    bob.status === 'active' || /the store refused the result/.test(bob.tracking.lastError ?? ''),
    `bob: ${bob.status} ${bob.tracking.lastError}`,
  );
});

test('errors are stored without NUL or control characters', async (t) => {
  const w = await trackerWorld(t);
  w.x.addUser({ username: 'jack' });
  await w.importCsv('username\njack\n');
  const client = xClient(w, () => ({
    lookupByUsernames: async () => {
      throw new PlatformError('invalid_request', 'bad\u0000 \u0007request\r\nfrom\tproxy\u001b[31m');
    },
  }));
  await w.tracker({ clients: [client] }).tick();
  const jack = await w.account('x', 'jack');
  assert.equal(jack.tracking.lastError, 'invalid_request: bad request from proxy[31m');
});
