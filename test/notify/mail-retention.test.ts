// MAIL_RETENTION over real SMTP on the app's clock: messages sent or failed longer ago than the
// setting go with their attempts from the delivery log, on the retention round beside the other
// tables; a message still being tried stays however old, and one that finished recently stays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createMailer } from '../../src/notify/create-mailer.ts';
import { enqueueMail } from '../../src/services/mail-outbox.ts';
import { pruneOnce } from '../../src/services/retention.ts';
import { listMailAttempts } from '../../src/storage/mail-repo.ts';
import { build } from '../helpers/app.ts';
import { startSmtpReceiver } from './smtp-receiver.ts';

const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;

test('sent and failed mail older than MAIL_RETENTION is pruned with its attempts; mail being tried stays', async (t) => {
  const smtp = await startSmtpReceiver();
  t.after(() => smtp.close());
  const h = await build(
    t,
    { tracker: false },
    { SMTP_URL: smtp.url, MAIL_FROM: 'perch@example.test', MAIL_RETRY_SCHEDULE: '1m,10m', MAIL_RETENTION: '30d' },
  );
  assert.equal(h.config.retention.mail, 30 * DAY);
  const mailer = createMailer(h.config, h.deps.store, createLogger('silent'), {
    clock: { now: h.clock.now, sleep: async () => {} },
  });
  assert.ok(mailer);
  t.after(() => mailer.stop());
  const { store } = h.deps;
  const queue = (subject: string) =>
    store.db
      .transaction()
      .execute((trx) =>
        enqueueMail(
          trx,
          { to: ['ada@example.test'], subject, html: '<p>hi</p>', text: 'hi', kind: 'digest', ref: 'dgst_1' },
          h.clock.now(),
        ),
      );
  const prune = async () => (await pruneOnce(store, h.config.retention, h.clock, async () => {})).deleted.mail;
  const outbox = async () =>
    (await store.db.selectFrom('mail_outbox').select(['subject', 'status']).orderBy('id').execute()).map((r) => [
      r.subject,
      r.status,
    ]);
  const log = async () => (await listMailAttempts(store.db, { limit: 50 })).map((a) => [a.subject, a.outcome]);

  await queue('sent');
  assert.equal(await mailer.runOnce(), 1);
  smtp.refuse(3, 451);
  await queue('failed');
  await mailer.runOnce();
  h.clock.advance(2 * MINUTE);
  await mailer.runOnce();
  h.clock.advance(13 * MINUTE);
  await mailer.runOnce();
  smtp.refuse(1, 451);
  await queue('retrying');
  await mailer.runOnce();
  assert.deepEqual(await outbox(), [
    ['sent', 'sent'],
    ['failed', 'failed'],
    ['retrying', 'pending'],
  ]);
  assert.equal(await prune(), 0, 'nothing is old yet');

  h.clock.advance(31 * DAY);
  assert.equal(await prune(), 2);
  assert.deepEqual(await outbox(), [['retrying', 'pending']]);
  assert.deepEqual(await log(), [['retrying', 'retry']]);

  // Sent a month after it was queued: it stays until it finished that long ago.
  assert.equal(await mailer.runOnce(), 1);
  assert.equal(await prune(), 0);
  assert.deepEqual(await outbox(), [['retrying', 'sent']]);
  h.clock.advance(31 * DAY);
  assert.equal(await prune(), 1);
  assert.deepEqual(await outbox(), []);
  assert.deepEqual(await log(), []);
  assert.deepEqual(
    smtp.messages.map((m) => m.subject),
    ['sent', 'retrying'],
  );
  assert.equal(createConfig({ MAIL_RETENTION: 'off' }).retention.mail, null);
});
