// Alert windows and anomalies on the metrics besides followers, by real checks on both stores
// against the local X server on a virtual clock: each window compares with the latest observation
// just before its own start, rules asking one question each fire, and an anomaly on posts is
// weighed against a month of snapshots.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAlertRule } from '../../src/domain/alert-rules.ts';
import { insertAlertRule } from '../../src/storage/alert-rules-repo.ts';
import { listEvents } from '../../src/storage/events-list.ts';
import { trackerWorld, type TrackerWorld } from '../helpers/tracker.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ruleNumber = 0;
async function addRule(w: TrackerWorld, input: Record<string, unknown>): Promise<string> {
  const checked = checkAlertRule({ name: `rule ${++ruleNumber}`, ...input });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const id = `alr_window${ruleNumber}`;
  await insertAlertRule(w.store.db, { id, definition: checked.value, createdAt: 0, updatedAt: 0 });
  return id;
}

/** [rule id, username, value] of every alert so far, in order. */
async function alerts(w: TrackerWorld) {
  const events = await listEvents(w.store.db, w.store.caps, { after: 0, limit: 1_000, types: ['alert.triggered'] });
  return events.map((e) => [
    (e.data.rule as { id: string }).id,
    (e.data.account as { username: string }).username,
    e.data.value,
  ]);
}

test('windows on following and posts compare with their own start; rules asking one question both fire', async (t) => {
  const w = await trackerWorld(t);
  const cat = w.x.addUser({ username: 'cat', followers: 10, following: 100 });
  w.x.updateUser(cat.id, { posts: 10 });
  await w.importCsv('username\ncat\n');
  const rise = await addRule(w, { metric: 'following', condition: { changePercent: 20, windowHours: 2 } });
  const twin = await addRule(w, { metric: 'following', condition: { changePercent: 20, windowHours: 2 } });
  const long = await addRule(w, { metric: 'following', condition: { changePercent: 20, windowHours: 5 } });
  const posts = await addRule(w, { metric: 'posts', condition: { changePercent: 50, windowHours: 2 } });
  const tracker = w.tracker();
  await tracker.tick();
  for (const [following, count] of [
    [100, 10],
    [100, 10],
    [125, 16],
  ] as const) {
    w.x.updateUser(cat.id, { following, posts: count });
    w.clock.advance(HOUR);
    await tracker.tick();
  }
  // 2 h back following was 100 (+25 %), posts 10 (+60 %); 5 h back nothing was seen yet.
  assert.deepEqual(
    (await alerts(w)).sort(),
    [
      [posts, 'cat', 16],
      [rise, 'cat', 125],
      [twin, 'cat', 125],
    ].sort(),
  );
  // Three hours on, still 125: 2 h back is 125 now (no change); 5 h back is the first check's 100.
  for (let h = 0; h < 3; h += 1) {
    w.clock.advance(HOUR);
    await tracker.tick();
  }
  assert.deepEqual((await alerts(w)).slice(3), [[long, 'cat', 125]]);
});

test('an anomaly on posts is weighed against a month of snapshots', async (t) => {
  const w = await trackerWorld(t);
  const poster = w.x.addUser({ username: 'poster', followers: 10 });
  await w.importCsv('username\nposter\n');
  const rule = await addRule(w, { metric: 'posts', condition: { anomaly: { sensitivity: 3 } } });
  const tracker = w.tracker();
  for (let day = 0; day <= 30; day += 1) {
    w.x.updateUser(poster.id, { posts: 100 + 5 * day + (day % 2) });
    await tracker.tick();
    w.clock.advance(DAY);
  }
  assert.deepEqual(await alerts(w), []);
  w.x.updateUser(poster.id, { posts: 100 + 5 * 30 + 80 });
  await tracker.tick();
  assert.deepEqual(await alerts(w), [[rule, 'poster', 330]]);
});
