// Events written by the tracker and by imports, on a real store against the local platform
// servers, on a virtual clock: each type fires exactly when it should, in the same transaction.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/logger.ts';
import { createWebhook } from '../../src/services/webhooks.ts';
import { listEvents } from '../../src/storage/events-list.ts';
import { createDeliverer } from '../../src/webhooks/create-deliverer.ts';
import { trackerWorld, type TrackerWorld } from '../helpers/tracker.ts';
import { startReceiver, verifySignature } from '../webhooks/receiver.ts';

const HOUR = 3_600_000;

async function eventsOf(w: TrackerWorld, type?: string) {
  const all = await listEvents(w.store.db, w.store.caps, {
    after: 0,
    limit: 1_000,
    ...(type ? { types: [type] } : {}),
  });
  return all;
}

test('an import records import.completed with its counts, in its transaction', async (t) => {
  const w = await trackerWorld(t);
  await w.importCsv('username\njack\nalice\njack\nbad name!\n');
  const [event, ...rest] = await eventsOf(w);
  assert.equal(rest.length, 0);
  assert.equal(event?.type, 'import.completed');
  assert.match(String(event?.data.importId), /^imp_/);
  assert.deepEqual(
    { ...event?.data, importId: 'x' },
    {
      importId: 'x',
      received: 4,
      accepted: 2,
      inserted: 2,
      reactivated: 0,
      alreadyTracked: 0,
      duplicates: 1,
      rejectedCount: 1,
    },
  );
  assert.match(event?.id ?? '', /^evt_[a-z0-9]{20}$/);
});

test('checks record checked_first, status changes, renames, milestones once and spikes at most daily', async (t) => {
  const w = await trackerWorld(t);
  const jack = w.x.addUser({ username: 'jack', followers: 950 });
  const sue = w.x.addUser({ username: 'sue', followers: 40 });
  w.bsky.addUser({ handle: 'carol.bsky.social', followers: 10 });
  await w.importCsv('username\njack\nsue\ncarol.bsky.social\n');
  const tracker = w.tracker();
  await tracker.tick();
  const first = await eventsOf(w, 'account.checked_first');
  assert.deepEqual(first.map((e) => (e.data.account as { username: string }).username).sort(), [
    'carol.bsky.social',
    'jack',
    'sue',
  ]);
  assert.deepEqual(first.find((e) => (e.data.account as { username: string }).username === 'jack')?.data, {
    account: { id: (await w.account('x', 'jack')).id, platform: 'x', username: 'jack', platformUserId: jack.id },
    status: 'active',
  });
  // 950 is the baseline: milestone 100 behind it is not announced.
  assert.equal((await eventsOf(w, 'account.followers_milestone')).length, 0);

  // An hour later: jack crosses 1,000 (a milestone, +5 %: no spike), sue is suspended.
  w.x.updateUser(jack.id, { followers: 1_000 });
  w.x.suspend(sue.id);
  w.clock.advance(HOUR);
  await tracker.tick();
  assert.deepEqual(
    (await eventsOf(w, 'account.followers_milestone')).map((e) => [e.data.milestone, e.data.followers]),
    [[1_000, 1_000]],
  );
  const changed = await eventsOf(w, 'account.status_changed');
  assert.deepEqual(
    changed.map((e) => [(e.data.account as { username: string }).username, e.data.from, e.data.to]),
    [['sue', 'active', 'suspended']],
  );
  assert.match(String(changed[0]?.data.reason), /suspended/i);

  // Next hour: jack is renamed and jumps by 400 (+40 % within 24 h: a spike); the milestone is not repeated.
  w.x.rename(jack.id, 'jack_new');
  w.x.updateUser(jack.id, { followers: 1_400 });
  w.clock.advance(HOUR);
  await tracker.tick();
  const renamed = await eventsOf(w, 'account.renamed');
  assert.deepEqual(
    renamed.map((e) => [e.data.from, e.data.to, (e.data.account as { username: string }).username]),
    [['jack', 'jack_new', 'jack_new']],
  );
  const spikes = await eventsOf(w, 'account.followers_spike');
  assert.deepEqual(
    spikes.map((e) => [e.data.change, e.data.windowHours]),
    [[450, 2]],
  );

  // Another jump an hour later: still within 24 h of the last spike, so no second spike.
  w.x.updateUser(jack.id, { followers: 2_000 });
  w.clock.advance(HOUR);
  await tracker.tick();
  assert.equal((await eventsOf(w, 'account.followers_spike')).length, 1);
  assert.equal((await eventsOf(w, 'account.followers_milestone')).length, 1);
  // Nothing else happened to carol: only her first check.
  const carol = (await eventsOf(w)).filter(
    (e) => (e.data.account as { username?: string } | undefined)?.username === 'carol.bsky.social',
  );
  assert.deepEqual(
    carol.map((e) => e.type),
    ['account.checked_first'],
  );
});

test('a suspension seen by the tracker reaches a subscribed endpoint as account.status_changed, signed', async (t) => {
  const w = await trackerWorld(t, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const secret = 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz';
  const { secret: signing } = await createWebhook(
    { store: w.store, clock: w.clock, keyHashSecret: secret, allowPrivate: true },
    { url: receiver.url, events: ['account.status_changed'] },
    'test',
  );
  const deliverer = createDeliverer(w.config, w.store, createLogger('silent'), secret, { clock: w.clock });
  const jack = w.x.addUser({ username: 'jack', followers: 10 });
  await w.importCsv('username\njack\n');
  const tracker = w.tracker();
  await tracker.tick();
  assert.equal(await deliverer.runOnce(), 0, 'a first check is not a status change');
  w.x.suspend(jack.id);
  w.clock.advance(HOUR);
  await tracker.tick();
  assert.equal(await deliverer.runOnce(), 1);
  const [got] = receiver.received;
  assert.ok(got && verifySignature(signing, got));
  const body = JSON.parse(got.body);
  assert.deepEqual(
    [body.type, body.data.account.username, body.data.from, body.data.to],
    ['account.status_changed', 'jack', 'active', 'suspended'],
  );
});
