// Health lists every tracker of the deployment from the heartbeats in the store, and warns about
// a lost one only while it may still hold leases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeBeat } from '../../src/storage/tracker-processes-repo.ts';
import { build } from '../helpers/app.ts';

const MINUTE = 60_000;

test('health lists trackers with their state, and warns while a lost one may hold leases', async (t) => {
  const { app, deps, clock } = await build(t, { trackLeaseMs: 5 * MINUTE });
  const beat = (owner: string, at: number) =>
    writeBeat(
      deps.store.db,
      { owner, host: 'box', pid: 7, role: 'worker', startedAt: at, checks: 120, batches: 2 },
      at,
    );
  await beat('tracker-a', clock.now());
  await beat('tracker-b', clock.now() - MINUTE);
  const health = async () => (await app.inject({ url: '/api/health' })).json();

  const first = await health();
  const byId = Object.fromEntries(first.checks.tracker.trackers.map((tr: { id: string }) => [tr.id, tr]));
  assert.equal(byId['tracker-a'].state, 'running');
  assert.equal(byId['tracker-a'].checks, 120);
  assert.equal(byId['tracker-b'].state, 'lost');
  assert.equal(first.status, 'warn');
  assert.match(first.checks.tracker.notes.join(' '), /not heard of/);

  // Once its leases must have expired, a lost tracker is still listed but no longer a warning.
  clock.advance(6 * MINUTE);
  await beat('tracker-a', clock.now());
  const later = await health();
  assert.equal(later.status, 'pass', JSON.stringify(later.checks.tracker.notes));
  assert.ok(
    later.checks.tracker.trackers.some(
      (tr: { id: string; state: string }) => tr.id === 'tracker-b' && tr.state === 'lost',
    ),
  );
});
