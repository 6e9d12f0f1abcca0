// Digests end to end on both stores, a virtual clock and a real SMTP server: a daily digest at
// 08:00 Europe/Paris around the October DST change (a 25-hour day) goes out once per period with
// the right deltas and movers; two processes send it once; a send missed while perch was down goes
// out late, once; bad input is a field-level 400 that changes nothing.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { claimDigestSend } from '../../src/storage/digests-repo.ts';
import { openStore } from '../../src/storage/store.ts';
import { testStoreOptions } from '../helpers/store-url.ts';
import { digestWorld, HOUR } from './digest-world.ts';

// Europe/Paris leaves summer time on Sunday 25 October 2026 at 01:00 UTC: 08:00 is 06:00 UTC on
// the 24th and 07:00 UTC on the 25th.
const CREATED = Date.parse('2026-10-23T12:00:00Z');
const SAT_0800 = Date.parse('2026-10-24T06:00:00Z');
const SUN_0800 = Date.parse('2026-10-25T07:00:00Z');
const FROM = Date.parse('2026-10-22T00:00:00Z');
const TO = Date.parse('2026-10-27T00:00:00Z');
const CSV = 'username,tags\nada,press\nbob,press\ncyd,press\ndan,\n';
const DIGEST = {
  name: 'Press morning',
  scope: { tags: ['press'] },
  schedule: 'daily',
  at: '08:00',
  timeZone: 'Europe/Paris',
  recipients: ['desk@example.test', 'editor@example.test'],
};

async function pressWorld(t: TestContext) {
  const w = await digestWorld(t, CSV, CREATED);
  const [ada, bob, cyd, dan] = await Promise.all(['ada', 'bob', 'cyd', 'dan'].map((n) => w.rowId(n)));
  // ada gains 10 an hour and posts every 6 hours; bob loses 5 an hour; cyd stands still; dan
  // (not in the scope) gains the most of all.
  await w.snapshots(
    ada!,
    FROM,
    TO,
    (h) => 1000 + 10 * h,
    (h) => 50 + Math.floor(h / 6),
  );
  await w.snapshots(bob!, FROM, TO, (h) => 5000 - 5 * h);
  await w.snapshots(cyd!, FROM, TO, () => 300);
  await w.snapshots(dan!, FROM, TO, (h) => 10 + 100 * h);
  const created = await w.admin('POST', '/api/admin/digests', DIGEST);
  assert.equal(created.statusCode, 201, JSON.stringify(created.json()));
  return { ...w, ids: { ada: ada!, bob: bob!, cyd: cyd!, dan: dan! }, digest: created.json() };
}

test('a daily digest at 08:00 Europe/Paris goes out once per period across the DST change, with the right deltas and movers', async (t) => {
  const w = await pressWorld(t);
  assert.match(w.digest.id, /^dgst_/);
  assert.equal(w.digest.nextSendAt, new Date(SAT_0800).toISOString());
  await w.event(
    w.ids.ada,
    'ada',
    'account.followers_milestone',
    { milestone: 1000, followers: 1010 },
    SAT_0800 + 2 * HOUR,
  );
  await w.event(
    w.ids.bob,
    'bob',
    'alert.triggered',
    { rule: { id: 'alr_1', name: 'Falling' }, metric: 'followers', value: 4800, threshold: 4900 },
    SAT_0800 + 3 * HOUR,
  );
  await w.event(
    w.ids.dan,
    'dan',
    'account.followers_milestone',
    { milestone: 1000, followers: 1010 },
    SAT_0800 + 4 * HOUR,
  );

  w.clock.current = SAT_0800 - 60_000;
  assert.equal(await w.scheduler.runOnce(), 0, 'nothing before 08:00, and no period from before the digest existed');
  w.clock.current = SAT_0800 + 30_000;
  assert.equal(await w.scheduler.runOnce(), 1);
  assert.equal(await w.scheduler.runOnce(), 0, 'the period is claimed: not sent twice');
  await w.mailer.runOnce();
  assert.equal(w.smtp.messages.length, 1);

  // 06:30 UTC on the 25th is 07:30 in Paris (winter time again): not yet.
  w.clock.current = SUN_0800 - 30 * 60_000;
  assert.equal(await w.scheduler.runOnce(), 0, 'an hour later in UTC after the change');
  w.clock.current = SUN_0800 + 10_000;
  assert.equal(await w.scheduler.runOnce(), 1);
  await w.mailer.runOnce();
  assert.equal(w.smtp.messages.length, 2);
  assert.deepEqual(w.smtp.envelopes[1], ['desk@example.test', 'editor@example.test']);

  const mail = w.smtp.messages[1]!;
  assert.equal(mail.subject, 'Press morning: Sat 24 Oct 2026 08:00 – Sun 25 Oct 2026 08:00 (Europe/Paris)');
  const text = mail.text ?? '';
  // The period is 25 hours long: ada +250 (was +240 over the 24 hours before), bob −125 (was −120).
  assert.match(text, /@ada \(x\): 1,790 followers, \+250 \(\+16\.2 %\) \(was \+240\); 4 posts \(was 4\)/);
  assert.match(text, /@bob \(x\): 4,605 followers, −125 \(−2\.6 %\) \(was −120\)/);
  assert.match(text, /@cyd \(x\): 300 followers, 0 \(0 %\) \(was 0\)/);
  assert.match(text, /All accounts: 6,695 followers, \+125 \(\+1\.9 %\) \(was \+120\); 4 posts \(was 4\)/);
  // The table is ordered by followers.
  assert.ok(text.indexOf('@bob (x): 4,605') < text.indexOf('@ada (x): 1,790'));
  assert.match(text, /Top movers up\n {2}@ada \(x\) \+250 \(\+16\.2 %\)\n\n/);
  assert.match(text, /Top movers down\n {2}@bob \(x\) −125 \(−2\.6 %\)\n\n/);
  assert.match(
    text,
    /Alerts\n {2}2026-10-24 09:00 UTC {2}Alert “Falling” fired for @bob: followers 4,800 \(threshold 4,900\)/,
  );
  assert.match(text, /Events\n {2}2026-10-24 08:00 UTC {2}@ada passed 1,000 followers\n\n/);
  assert.doesNotMatch(text, /@dan/, 'an account outside the scope is not in it');
  assert.doesNotMatch(text, /Sent late/);
  // The HTML part: inline styles, table layout, nothing remote.
  const html = String(mail.html);
  assert.match(html, /<table width="100%" cellpadding="0" cellspacing="0" role="presentation"/);
  assert.match(html, /<strong>@ada<\/strong>/);
  assert.doesNotMatch(html, /<img|<script|<link|<style|class=|https?:\/\/(?!www\.w3)/);
  assert.equal(mail.headers.get('x-perch-kind'), 'digest');

  const sends = await w.admin('GET', `/api/admin/digests/${w.digest.id}/sends`);
  assert.deepEqual(
    sends
      .json()
      .data.map((s: { periodStart: string; periodEnd: string; late: boolean }) => [s.periodStart, s.periodEnd, s.late]),
    [
      ['2026-10-24T06:00:00.000Z', '2026-10-25T07:00:00.000Z', false],
      ['2026-10-23T06:00:00.000Z', '2026-10-24T06:00:00.000Z', false],
    ],
  );
  const log = await w.admin('GET', '/api/admin/mail');
  assert.deepEqual(
    log.json().data.map((a: { outcome: string; kind: string }) => [a.kind, a.outcome]),
    [
      ['digest', 'sent'],
      ['digest', 'sent'],
    ],
  );
});

test('two schedulers on two store handles send a period once', async (t) => {
  const w = await pressWorld(t);
  const other = await openStore(w.config.databaseUrl, { ...testStoreOptions, migrate: false });
  t.after(() => other.close());
  const second = w.secondProcess(other);
  w.clock.current = SAT_0800 + 5_000;
  // PostgreSQL: both render and race for the claim at once. SQLite in one process cannot hold two
  // write transactions at once (better-sqlite3 waits synchronously), so there they take turns.
  const rounds = [() => w.scheduler.runOnce(), () => second.scheduler.runOnce(), () => w.scheduler.runOnce()];
  const queued =
    w.deps.store.caps.name === 'postgres'
      ? await Promise.all(rounds.map((r) => r()))
      : [await rounds[0]!(), await rounds[1]!(), await rounds[2]!()];
  assert.equal(
    queued.reduce((a, b) => a + b, 0),
    1,
  );
  // The claim itself: a second insert of the same period, from the other handle, is refused.
  const claim = {
    digestId: w.digest.id,
    periodStart: SAT_0800 - 24 * HOUR,
    periodEnd: SAT_0800,
    claimedAt: SAT_0800,
    late: false,
  };
  assert.equal(await claimDigestSend(other.db, claim), false);
  await w.mailer.runOnce();
  await second.mailer.runOnce();
  assert.equal(w.smtp.messages.length, 1);
  assert.equal(await second.scheduler.runOnce(), 0);
});

test('a send missed while perch was down goes out when it is back, marked late, once', async (t) => {
  const w = await pressWorld(t);
  // Down from before Saturday 08:00 until Sunday 10:00 Paris: only Sunday's period goes out, late.
  w.clock.current = SUN_0800 + 2 * HOUR;
  assert.equal(await w.scheduler.runOnce(), 1);
  assert.equal(await w.scheduler.runOnce(), 0);
  await w.mailer.runOnce();
  assert.equal(w.smtp.messages.length, 1);
  const mail = w.smtp.messages[0]!;
  assert.match(mail.subject ?? '', /^\[late\] Press morning: Sat 24 Oct 2026 08:00 – Sun 25 Oct 2026 08:00/);
  assert.match(mail.text ?? '', /Sent late: perch was not running at the scheduled time\./);
  // The next period is on time again.
  w.clock.current = SUN_0800 + 24 * HOUR + 1_000;
  assert.equal(await w.scheduler.runOnce(), 1);
  await w.mailer.runOnce();
  assert.doesNotMatch(w.smtp.messages[1]?.subject ?? '', /late/);
});

test('bad input is a field-level 400 and changes nothing; preview renders the next digest now', async (t) => {
  const w = await pressWorld(t);
  const bad = await w.admin('POST', '/api/admin/digests', {
    ...DIGEST,
    timeZone: 'Europe/Atlantis',
    at: '8am',
    recipients: ['desk@example.test', 'not an address'],
    schedule: 'hourly',
  });
  assert.equal(bad.statusCode, 400);
  assert.deepEqual(
    bad
      .json()
      .errors.map((e: { field: string }) => e.field)
      .sort(),
    ['body/at', 'body/recipients/1', 'body/schedule', 'body/timeZone'],
  );
  const patch = await w.admin('PATCH', `/api/admin/digests/${w.digest.id}`, { at: '25:00', name: 'Renamed' });
  assert.equal(patch.statusCode, 400);
  assert.deepEqual(
    patch.json().errors.map((e: { field: string }) => e.field),
    ['body/at'],
  );
  const list = await w.admin('GET', '/api/admin/digests');
  assert.equal(list.json().data.length, 1);
  assert.equal(list.json().data[0].name, 'Press morning', 'the bad change changed nothing');
  assert.equal((await w.admin('GET', '/api/admin/digests/dgst_nope')).statusCode, 404);

  const changed = await w.admin('PATCH', `/api/admin/digests/${w.digest.id}`, { schedule: 'weekly', at: '09:30' });
  assert.equal(changed.statusCode, 200);
  assert.equal(changed.json().nextSendAt, '2026-10-26T08:30:00.000Z', 'Monday 09:30 Paris, winter time');
  w.clock.current = SAT_0800 + HOUR;
  const preview = await w.admin('GET', `/api/admin/digests/${w.digest.id}/preview`);
  assert.equal(preview.statusCode, 200);
  assert.equal(preview.json().periodEnd, '2026-10-26T08:30:00.000Z');
  assert.match(preview.json().text, /@ada \(x\)/);
  assert.match(preview.json().html, /^<!doctype html>/);
  assert.equal((await w.admin('DELETE', `/api/admin/digests/${w.digest.id}`)).statusCode, 200);
  assert.equal((await w.admin('GET', '/api/admin/digests')).json().data.length, 0);
});
