// Trackers on PostgreSQL wake each other through LISTEN/NOTIFY: an import or a refresh written by
// another process reaches idle trackers at once, not at their next poll. The trackers here poll
// only every 10 minutes, so only a notification can make them check within the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { systemClock } from '../../src/clock.ts';
import { commitImport, planImport } from '../../src/services/import-accounts.ts';
import { openStore } from '../../src/storage/store.ts';
import { makeDueNow } from '../../src/storage/tracking-repo.ts';
import type { Tracker } from '../../src/tracker/tracker.ts';
import { dialectName } from '../helpers/store-url.ts';
import { trackerWorld } from '../helpers/tracker.ts';

const NEVER_POLL_MS = 10 * 60_000;

/** Resolves once `condition` holds; fails after `timeoutMs` (generous: a loaded machine is slow, a poll would take 10 min). */
async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    assert.ok(Date.now() - started < timeoutMs, `timed out waiting for ${what}`);
    await delay(25);
  }
}

test(
  "two trackers on PostgreSQL are woken by another process's import and refresh, also after their listening connections were dropped",
  { skip: dialectName !== 'postgres' && "LISTEN/NOTIFY is PostgreSQL's (TEST_DATABASE_URL)", timeout: 120_000 },
  async (t) => {
    const w = await trackerWorld(t);
    w.x.addUser({ username: 'jack' });
    // Three processes on one database: two trackers, and one that imports and refreshes.
    const [storeB, importer] = await Promise.all([openStore(w.config.databaseUrl), openStore(w.config.databaseUrl)]);
    const a = w.tracker({ clock: systemClock, idlePollMs: NEVER_POLL_MS });
    const b = w.tracker({ store: storeB, clock: systemClock, idlePollMs: NEVER_POLL_MS });
    t.after(async () => {
      await Promise.all([a.stop(0), b.stop(0)]);
      await Promise.all([storeB.close(), importer.close()]);
    });
    a.start();
    b.start();
    // Each lane (X, Bluesky) runs a round at start and one more once its tracker's listener is
    // connected (a notification may have been missed before): after that, all are idle until woken.
    const ticks = (tracker: Tracker) => tracker.status().ticks;
    const lanes = (tracker: Tracker) => Object.values(tracker.status().platforms).filter((p) => p.configured).length;
    await until(() => ticks(a) >= 2 * lanes(a) && ticks(b) >= 2 * lanes(b), 'both trackers to listen');
    const before = [ticks(a), ticks(b)];

    await commitImport(importer, await planImport('username\njack\n', w.config), {
      actor: 'test',
      source: 'test',
      clock: systemClock,
    });
    await until(async () => (await w.account('x', 'jack')).status === 'active', 'jack to be checked');
    await until(() => ticks(a) > before[0]! && ticks(b) > before[1]!, 'both trackers to wake');

    // The server drops both listening connections (a restart, a failover): the trackers stay up and listen again.
    const channel = await importer.caps.dueNotifications!.channel(importer.db);
    const listening = sql<{ pid: number }>`select pid from pg_stat_activity where query = ${`listen "${channel}"`}`;
    await until(async () => (await listening.execute(importer.db)).rows.length === 2, 'two listening connections');
    const dropped = (await listening.execute(importer.db)).rows.map((r) => r.pid);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where pid in (${sql.join(dropped)})`.execute(
      importer.db,
    );
    await until(async () => {
      const pids = (await listening.execute(importer.db)).rows.map((r) => r.pid);
      return pids.length === 2 && pids.every((pid) => !dropped.includes(pid));
    }, 'the trackers to listen again');

    const checkedAt = (await w.account('x', 'jack')).tracking.lastCheckedAt;
    const row = await importer.db
      .selectFrom('accounts')
      .select('id')
      .where('username_key', '=', 'jack')
      .executeTakeFirstOrThrow();
    await delay(5); // a later millisecond, so the new check's time differs
    assert.equal(await makeDueNow(importer.db, row.id, Date.now()), true);
    await until(
      async () => (await w.account('x', 'jack')).tracking.lastCheckedAt !== checkedAt,
      'jack to be checked again after the refresh',
    );
  },
);
