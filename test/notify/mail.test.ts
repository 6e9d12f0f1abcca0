// Mail over a real SMTP server on loopback, on the app's clock: a queued message arrives with its
// HTML and text parts; a server that refuses is retried on the schedule and every attempt is in
// the log; after the last retry the message has failed; without SMTP_URL nothing is sent and
// health says so.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { createLogger } from '../../src/logger.ts';
import { createMailer } from '../../src/notify/create-mailer.ts';
import { enqueueMail } from '../../src/services/mail-outbox.ts';
import { listMailAttempts } from '../../src/storage/mail-repo.ts';
import { build } from '../helpers/app.ts';
import { startSmtpReceiver } from './smtp-receiver.ts';

const MINUTE = 60_000;

async function mailWorld(t: TestContext, schedule = '1m,10m') {
  const smtp = await startSmtpReceiver();
  t.after(() => smtp.close());
  const h = await build(
    t,
    { tracker: false },
    { SMTP_URL: smtp.url, MAIL_FROM: 'perch <perch@example.test>', MAIL_RETRY_SCHEDULE: schedule },
  );
  const mailer = createMailer(h.config, h.deps.store, createLogger('silent'), {
    clock: { now: h.clock.now, sleep: async () => {} },
  });
  assert.ok(mailer);
  t.after(() => mailer.stop());
  const queue = (subject: string, to = ['ada@example.test', 'bob@example.test']) =>
    h.deps.store.db
      .transaction()
      .execute((trx) =>
        enqueueMail(
          trx,
          { to, subject, html: '<p>Hello <b>there</b></p>', text: 'Hello there', kind: 'alert', ref: 'al_1' },
          h.clock.now(),
        ),
      );
  return { ...h, smtp, mailer, queue };
}

test('a queued message is sent over SMTP with its HTML and text parts, once', async (t) => {
  const w = await mailWorld(t);
  const id = await w.queue('Followers moved');
  assert.ok(id !== null);
  assert.equal(await w.mailer.runOnce(), 1);
  assert.equal(await w.mailer.runOnce(), 0, 'nothing is sent twice');
  assert.equal(w.smtp.messages.length, 1);
  const [got] = w.smtp.messages;
  assert.equal(got?.subject, 'Followers moved');
  assert.equal(got?.from?.text, '"perch" <perch@example.test>');
  assert.equal(got?.text?.trim(), 'Hello there');
  assert.match(String(got?.html), /Hello <b>there<\/b>/);
  assert.equal(got?.headers.get('x-perch-kind'), 'alert');
  assert.deepEqual(w.smtp.envelopes[0], ['ada@example.test', 'bob@example.test']);
  const log = await listMailAttempts(w.deps.store.db, { limit: 10 });
  assert.equal(log.length, 1);
  assert.equal(log[0]?.outcome, 'sent');
  assert.match(log[0]?.response ?? '', /^250/);
  // No recipients: nothing is queued.
  assert.equal(await w.queue('nobody', []), null);
});

test('a server that refuses is retried on the schedule, each attempt logged, until it accepts', async (t) => {
  const w = await mailWorld(t, '1m,10m');
  w.smtp.refuse(2, 451);
  await w.queue('Daily digest');
  assert.equal(await w.mailer.runOnce(), 1);
  assert.equal(w.smtp.refused, 1);
  assert.equal(await w.mailer.runOnce(), 0, 'not due again before its retry time');
  w.clock.advance(1.3 * MINUTE);
  assert.equal(await w.mailer.runOnce(), 1);
  assert.equal(w.smtp.refused, 2);
  w.clock.advance(5 * MINUTE);
  assert.equal(await w.mailer.runOnce(), 0, 'the second wait is longer (10 min ± 20 %)');
  w.clock.advance(8 * MINUTE);
  assert.equal(await w.mailer.runOnce(), 1);
  assert.equal(w.smtp.messages.length, 1);
  assert.equal(w.smtp.messages[0]?.subject, 'Daily digest');
  const log = await listMailAttempts(w.deps.store.db, { limit: 10 });
  assert.deepEqual(
    log.map((a) => [a.attempt, a.outcome]),
    [
      [3, 'sent'],
      [2, 'retry'],
      [1, 'retry'],
    ],
  );
  assert.match(log[2]?.error ?? '', /451/);
  assert.ok((log[2]?.nextRetryAt ?? 0) > log[2]!.at);
});

test('after the last retry the message has failed, and is not tried again', async (t) => {
  const w = await mailWorld(t, '1m');
  w.smtp.refuse(5, 554);
  await w.queue('Never');
  await w.mailer.runOnce();
  w.clock.advance(2 * MINUTE);
  await w.mailer.runOnce();
  w.clock.advance(60 * MINUTE);
  assert.equal(await w.mailer.runOnce(), 0);
  const log = await listMailAttempts(w.deps.store.db, { limit: 10 });
  assert.deepEqual(
    log.map((a) => [a.attempt, a.outcome, a.nextRetryAt]),
    [
      [2, 'failed', null],
      [1, 'retry', log[1]?.nextRetryAt],
    ],
  );
  assert.equal(w.smtp.messages.length, 0);
});

test('without SMTP_URL no sender is built and health says mail is off', async (t) => {
  const h = await build(t, { tracker: false });
  assert.equal(createMailer(h.config, h.deps.store, createLogger('silent')), null);
  const health = await h.app.inject({ method: 'GET', url: '/api/health' });
  const mail = health.json().checks.mail;
  assert.equal(mail.status, 'pass');
  assert.equal(mail.configured, false);
  assert.match(mail.notes[0], /no SMTP_URL/);
});
