// Alert rules evaluated by real checks, on both stores, against the local X server on a virtual
// clock: each condition fires when it should and not again during its cooldown, only for the
// accounts its scope names; the anomaly fires on a spike against a quiet 30-day baseline and not
// on steady growth; a rule that cannot be read or weighed is skipped and the check goes on; an
// alert is queued to a subscribed webhook like any event.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { recentFirings } from '../../src/storage/alert-firings-repo.ts';
import { createWebhook } from '../../src/services/webhooks.ts';
import { createLogger } from '../../src/logger.ts';
import { createMailer } from '../../src/notify/create-mailer.ts';
import { trackerWorld } from '../helpers/tracker.ts';
import { startSmtpReceiver } from '../notify/smtp-receiver.ts';
import { addRule, alertEvents, alerts } from './alert-helpers.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

test('levels and changes fire when they hold, once per cooldown, for the accounts in scope', async (t) => {
  const w = await trackerWorld(t);
  const ann = w.x.addUser({ username: 'ann', followers: 950, following: 10 });
  w.x.addUser({ username: 'bob', followers: 5_000, following: 10 });
  await w.importCsv('username,tags\nann,news\nbob,\n');
  const above = await addRule(w, {
    metric: 'followers',
    condition: { above: 1_000 },
    cooldown: '2h',
    scope: { tags: ['news'] },
  });
  const below = await addRule(w, { metric: 'following', condition: { below: 5 }, scope: { platform: 'x' } });
  const rise = await addRule(w, {
    name: 'Rising',
    metric: 'followers',
    condition: { changePercent: 10, windowHours: 3 },
    scope: { accounts: [(await w.account('x', 'ann')).id] },
  });
  const tracker = w.tracker();
  await tracker.tick();
  // bob has 5,000 but is not tagged news; nothing else holds.
  assert.deepEqual(await alerts(w), []);

  const hourly = async (followers: number, following = 10) => {
    w.x.updateUser(ann.id, { followers, following });
    w.clock.advance(HOUR);
    await tracker.tick();
  };
  await hourly(1_001);
  assert.deepEqual(await alerts(w), [[above, 'ann', 1_001]]);
  await hourly(1_040); // still above, within the 2 h cooldown; no point 3 h back yet
  assert.deepEqual(await alerts(w), [[above, 'ann', 1_001]]);
  await hourly(1_050, 3); // the cooldown is over; +10.5 % over 3 h; following below 5
  const sorted = (await alerts(w)).slice(1).sort();
  assert.deepEqual(sorted, [
    [above, 'ann', 1_050],
    [below, 'ann', 3],
    [rise, 'ann', 1_050],
  ]);
  const event = (await alertEvents(w)).find((e) => (e.data.rule as { id: string }).id === rise);
  assert.deepEqual(
    { ...event?.data, account: undefined },
    {
      account: undefined,
      rule: { id: rise, name: 'Rising' },
      metric: 'followers',
      value: 1_050,
      threshold: 10,
      baseline: 950,
      windowHours: 3,
      change: 100,
      changePercent: 10.53,
      condition: { changePercent: 10, windowHours: 3 },
    },
  );
  await hourly(1_060, 3); // both within their cooldowns (2 h and the default 24 h)
  assert.equal((await alerts(w)).length, 4);
  const firings = await recentFirings(w.store.db, above, 10);
  assert.deepEqual(
    firings.map((f) => [f.count, f.data.value]),
    [[2, 1_050]],
  );
});

test('an anomaly fires on a spike against a quiet 30-day baseline, not on steady growth', async (t) => {
  const w = await trackerWorld(t);
  const calm = w.x.addUser({ username: 'calm', followers: 1_000 });
  const grower = w.x.addUser({ username: 'grower', followers: 1_000 });
  await w.importCsv('username\ncalm\ngrower\n');
  const rule = await addRule(w, { metric: 'followers', condition: { anomaly: { sensitivity: 3 } } });
  const tracker = w.tracker();
  for (let day = 0; day <= 30; day += 1) {
    w.x.updateUser(calm.id, { followers: 1_000 + (day % 3) });
    w.x.updateUser(grower.id, { followers: 1_000 + 200 * day + (day % 2) * 7 });
    await tracker.tick();
    w.clock.advance(DAY);
  }
  assert.deepEqual(await alerts(w), []);
  // Day 31: calm gains 302 at once; grower goes on growing as it always has.
  w.x.updateUser(calm.id, { followers: 1_302 });
  w.x.updateUser(grower.id, { followers: 1_000 + 200 * 31 + 7 });
  await tracker.tick();
  assert.deepEqual(await alerts(w), [[rule, 'calm', 1_302]]);
  const [event] = await alertEvents(w);
  assert.equal(event?.data.change, 302);
  assert.ok(Number(event?.data.zScore) > 3);
});

test('quiet days fire once the last post is that old', async (t) => {
  const w = await trackerWorld(t);
  const poet = w.x.addUser({ username: 'poet', followers: 10 });
  w.x.addPost(poet.id, { text: 'hello' });
  await w.importCsv('username\npoet\n');
  const rule = await addRule(w, { metric: 'posts', condition: { quietDays: 2 } });
  const tracker = w.tracker();
  await tracker.tick();
  w.clock.advance(DAY);
  await tracker.tick();
  assert.deepEqual(await alerts(w), []);
  w.clock.advance(DAY + HOUR);
  await tracker.tick();
  assert.deepEqual(await alerts(w), [[rule, 'poet', 2]]);
  w.clock.advance(2 * HOUR);
  await tracker.tick();
  assert.equal((await alerts(w)).length, 1);
});

test('a rule that cannot be read or weighed is skipped; the check and the other rules go on', async (t) => {
  const w = await trackerWorld(t);
  w.x.addUser({ username: 'ann', followers: 2_000 });
  await w.importCsv('username\nann\n');
  const good = await addRule(w, { metric: 'followers', condition: { above: 1_000 } });
  const broken = await addRule(w, { metric: 'followers', condition: { above: 1_000 } });
  const odd = await addRule(w, { metric: 'followers', condition: { above: 1_000 } });
  await w.store.db.updateTable('alert_rules').set({ condition: '{not json' }).where('id', '=', broken).execute();
  await w.store.db.updateTable('alert_rules').set({ condition: 'null' }).where('id', '=', odd).execute();
  // A scope of a shape perch never writes (tags not a list), that names ann: skipped, not the batch.
  const shaped = await addRule(w, { metric: 'followers', condition: { above: 1_000 } });
  const annRow = await w.store.db
    .selectFrom('accounts')
    .select('id')
    .where('username', '=', 'ann')
    .executeTakeFirstOrThrow();
  await w.store.db
    .updateTable('alert_rules')
    .set({ scope: JSON.stringify({ accounts: [annRow.id], tags: 'vip' }) })
    .where('id', '=', shaped)
    .execute();
  const hook = await createWebhook(
    { store: w.store, clock: w.clock, keyHashSecret: w.config.keyHashSecret ?? '', allowPrivate: true },
    { url: 'http://127.0.0.1:9/hook', events: ['alert.triggered'] },
    null,
  );
  await w.tracker().tick();
  const ann = await w.account('x', 'ann');
  assert.equal(ann.status, 'active');
  assert.equal(ann.metrics?.followers, 2_000);
  assert.deepEqual(await alerts(w), [[good, 'ann', 2_000]]);
  const deliveries = await w.store.db
    .selectFrom('webhook_deliveries')
    .select('webhook_id')
    .where('webhook_id', '=', hook.webhook.id)
    .execute();
  assert.equal(deliveries.length, 1);

  // The store refuses a step of the rules (their firings table is gone): the check is written
  // without alerts, even on PostgreSQL, where a failed statement would fail the transaction.
  await sql`alter table alert_firings rename to alert_firings_away`.execute(w.store.db);
  w.x.updateUser((await w.account('x', 'ann')).platformUserId ?? '', { followers: 2_500 });
  w.clock.advance(DAY);
  await w.tracker().tick();
  const later = await w.account('x', 'ann');
  assert.equal(later.metrics?.followers, 2_500);
  assert.equal((await alerts(w)).length, 1);
});

test("a firing is mailed to the rule's recipients over SMTP, queued with the check", async (t) => {
  const smtp = await startSmtpReceiver();
  t.after(() => smtp.close());
  const w = await trackerWorld(t, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'perch <perch@example.test>' } });
  w.x.addUser({ username: 'ann', followers: 2_000 });
  await w.importCsv('username\nann\n');
  const rule = await addRule(w, {
    name: 'Ann is big',
    metric: 'followers',
    condition: { above: 1_000 },
    recipients: ['ada@example.test', 'bob@example.test'],
  });
  await addRule(w, { metric: 'followers', condition: { above: 1_500 } });
  await w.tracker().tick();
  const mailer = createMailer(w.config, w.store, createLogger('silent'), {
    clock: { now: w.clock.now, sleep: async () => {} },
  });
  assert.ok(mailer);
  t.after(() => mailer.stop());
  assert.equal(await mailer.runOnce(), 1, 'one message: the other rule has no recipients');
  const [got] = smtp.messages;
  assert.equal(got?.subject, 'Alert “Ann is big” fired for @ann: followers 2,000 (threshold 1,000)');
  assert.deepEqual(smtp.envelopes[0], ['ada@example.test', 'bob@example.test']);
  assert.match(got?.text ?? '', new RegExp(`/ui/alerts/${rule}`));
  assert.match(String(got?.html), /Ann is big/);
  assert.doesNotMatch(String(got?.html), /<img|<script/);
});
