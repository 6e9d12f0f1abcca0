// A world for digests: an app with mail on (a real SMTP server on loopback), accounts with hourly
// snapshots written straight into the store, and the scheduler and mail sender driven by hand on
// the app's clock.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { NewEvent } from '../../src/domain/events.ts';
import { createLogger } from '../../src/logger.ts';
import { createMailer } from '../../src/notify/create-mailer.ts';
import { DigestScheduler } from '../../src/notify/digest-scheduler.ts';
import type { Mailer } from '../../src/notify/mailer.ts';
import { findAccountRowId } from '../../src/storage/accounts-repo.ts';
import { recordEvents } from '../../src/storage/events-repo.ts';
import { upsertSnapshots } from '../../src/storage/history-repo.ts';
import type { Store } from '../../src/storage/store.ts';
import { build, type TestApp } from '../helpers/app.ts';
import { startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.ts';

export const HOUR = 3_600_000;

export interface DigestWorld extends TestApp {
  smtp: SmtpReceiver;
  mailer: Mailer;
  scheduler: DigestScheduler;
  /** A scheduler and sender of another process on the same store. */
  secondProcess(store?: Store): { scheduler: DigestScheduler; mailer: Mailer };
  rowId(username: string): Promise<number>;
  /** Hourly snapshots from `from` to `to` (inclusive), followers and posts given by hour index since `from`. */
  snapshots(
    accountId: number,
    from: number,
    to: number,
    followers: (h: number) => number,
    posts?: (h: number) => number,
  ): Promise<void>;
  event(
    accountId: number,
    username: string,
    type: NewEvent['type'],
    data: Record<string, unknown>,
    at: number,
  ): Promise<void>;
}

export async function digestWorld(t: TestContext, csv: string, start: number): Promise<DigestWorld> {
  const smtp = await startSmtpReceiver();
  t.after(() => smtp.close());
  const h = await build(t, { tracker: false }, { SMTP_URL: smtp.url, MAIL_FROM: 'perch <digests@example.test>' });
  h.clock.current = start;
  const virtual = { now: h.clock.now, sleep: async () => {} };
  const processOn = (store: Store) => {
    const mailer = createMailer(h.config, store, createLogger('silent'), { clock: virtual });
    assert.ok(mailer);
    t.after(() => mailer.stop());
    const scheduler = new DigestScheduler({ store, clock: virtual, mailOn: true }, () => {}, createLogger('silent'));
    return { mailer, scheduler };
  };
  const mine = processOn(h.deps.store);
  const inserted = await h.admin('POST', '/api/admin/insert', { file: csv });
  assert.equal(inserted.statusCode, 200);
  return {
    ...h,
    smtp,
    ...mine,
    secondProcess: (store = h.deps.store) => processOn(store),
    async rowId(username) {
      const id = await findAccountRowId(h.deps.store.db, { platform: 'x', key: username.toLowerCase() });
      assert.ok(id !== null);
      return id;
    },
    async snapshots(accountId, from, to, followers, posts = () => 100) {
      const rows = [];
      for (let at = from, i = 0; at <= to; at += HOUR, i++)
        rows.push({
          accountId,
          bucket: at,
          observedAt: at,
          followers: followers(i),
          following: 10,
          posts: posts(i),
          listed: null,
        });
      await upsertSnapshots(h.deps.store.db, h.deps.store.caps, rows);
    },
    async event(accountId, username, type, data, at) {
      await h.deps.store.db.transaction().execute((trx) =>
        recordEvents(
          trx,
          h.deps.store.caps,
          [
            {
              type,
              accountId,
              account: { id: `acc_${accountId}`, platform: 'x', username, platformUserId: null },
              data,
            },
          ],
          at,
        ),
      );
    },
  };
}
