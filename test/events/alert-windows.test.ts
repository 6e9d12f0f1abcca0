// Alert windows and anomalies on the metrics besides followers, by real checks on both stores
// against the local X server on a virtual clock: each window compares with the latest observation
// just before its own start, rules asking one question each fire, and an anomaly on posts is
// weighed against a month of snapshots.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trackerWorld } from '../helpers/tracker.ts';
import { addRule, alerts } from './alert-helpers.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

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
