// Retention: events older than EVENT_RETENTION go, on the retention schedule beside the other
// tables, except those an endpoint still has to receive; their finished deliveries go with them,
// and the attempts log ages by the same setting.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createConfig } from '../../src/config.ts';
import type { NewEvent } from '../../src/domain/events.ts';
import { createLogger } from '../../src/logger.ts';
import { PRUNE_BATCH, pruneOnce, startRetention } from '../../src/services/retention.ts';
import { listEvents } from '../../src/storage/events-list.ts';
import { recordEvents } from '../../src/storage/events-repo.ts';
import type { Store } from '../../src/storage/store.ts';
import { TestClock } from '../helpers/app.ts';
import { freshStores } from '../helpers/store-url.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const event = (n: number): NewEvent => ({ type: 'import.completed', accountId: null, account: null, data: { n } });
const record = (store: Store, n: number, at: number) =>
  store.db.transaction().execute(async (trx) => (await recordEvents(trx, store.caps, [event(n)], at))[0]!);

async function addWebhook(store: Store): Promise<void> {
  await store.db
    .insertInto('webhooks')
    .values({
      id: 'wh_a',
      url: 'http://127.0.0.1:9/',
      events: '["*"]',
      tags: '[]',
      description: null,
      enabled: 1,
      disabled_reason: null,
      secret: 'x',
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      created_at: T0,
      updated_at: T0,
    })
    .execute();
}

const attempt = (at: number) => ({
  delivery_id: 1,
  webhook_id: 'wh_a',
  event_id: 'evt_x',
  event_type: 'webhook.test',
  attempt: 1,
  at,
  status_code: 200,
  duration_ms: 5,
  error: null,
  next_retry_at: null,
});

test('EVENT_RETENTION keeps recent events and those still waiting for delivery', async (t) => {
  const [store] = await freshStores(t);
  const db = store!.db;
  await addWebhook(store!);
  const delivered = await record(store!, 1, T0);
  const waiting = await record(store!, 2, T0 + DAY);
  const recent = await record(store!, 3, T0 + 40 * DAY);
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivered', finished_at: T0 })
    .where('event_seq', '=', delivered.seq)
    .execute();
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivered', finished_at: T0 + 40 * DAY })
    .where('event_seq', '=', recent.seq)
    .execute();
  await db
    .insertInto('webhook_attempts')
    .values([attempt(T0), attempt(T0 + 40 * DAY)])
    .execute();

  const clock = new TestClock(T0 + 20 * DAY);
  const off = await pruneOnce(store!, createConfig({ EVENT_RETENTION: 'off' }).retention, clock, async () => {});
  assert.equal(off.deleted.events, undefined, 'off keeps events for ever');
  const retention = createConfig({ EVENT_RETENTION: '10d' }).retention;
  const report = await pruneOnce(store!, retention, clock, async () => {});
  assert.equal(report.deleted.events, 2, 'one event and one attempt older than 10 days');
  assert.deepEqual(
    (await listEvents(db, store!.caps, { after: 0, limit: 10 })).map((e) => e.id),
    [waiting.id, recent.id],
  );
  const left = await db.selectFrom('webhook_deliveries').select(['event_seq', 'status']).orderBy('event_seq').execute();
  assert.deepEqual(
    left.map((d) => [Number(d.event_seq), d.status]),
    [
      [waiting.seq, 'pending'],
      [recent.seq, 'delivered'],
    ],
  );
  const attempts = await db.selectFrom('webhook_attempts').select('at').execute();
  assert.deepEqual(
    attempts.map((a) => Number(a.at)),
    [T0 + 40 * DAY],
  );
});

test('events and attempts are pruned in batches; an attempt stamped ahead only delays the rest', async (t) => {
  const [store] = await freshStores(t);
  const db = store!.db;
  const old = PRUNE_BATCH * 2 + 7;
  const rows = Array.from({ length: old + 1 }, (_, i) => ({
    id: `evt_${i}`,
    type: 'import.completed',
    created_at: i < old ? T0 + i : T0 + 40 * DAY,
    account_id: null,
    platform: null,
    username_key: null,
    data: '{}',
  }));
  const attempts = rows.map((row) => attempt(row.created_at));
  // One attempt stamped ahead (a process whose clock runs fast) sits among the oldest ids.
  attempts.splice(PRUNE_BATCH + 10, 0, attempt(T0 + 40 * DAY));
  for (let i = 0; i < rows.length; i += 250) {
    await db
      .insertInto('events')
      .values(rows.slice(i, i + 250))
      .execute();
    await db
      .insertInto('webhook_attempts')
      .values(attempts.slice(i, i + 250))
      .execute();
  }
  const clock = new TestClock(T0 + 20 * DAY);
  const retention = createConfig({ EVENT_RETENTION: '10d' }).retention;
  const first = await pruneOnce(store!, retention, clock, async () => {});
  const countAttempts = async () =>
    Number(
      (
        await db
          .selectFrom('webhook_attempts')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
      )?.n,
    );
  // Every old event; the old attempts up to the batch that holds the young one (it ends the round).
  assert.equal(first.deleted.events, old + PRUNE_BATCH * 2 - 1);
  assert.deepEqual(
    (await listEvents(db, store!.caps, { after: 0, limit: 10 })).map((e) => e.id),
    [`evt_${old}`],
  );
  assert.equal(await countAttempts(), 10);
  const second = await pruneOnce(store!, retention, clock, async () => {});
  assert.equal(second.deleted.events, 8, 'the next round goes on past it');
  assert.equal(await countAttempts(), 2, 'only the young attempts are left');
});

test('retention prunes events on its schedule, and stop() ends it', async (t) => {
  const [store] = await freshStores(t);
  const clock = new TestClock(T0 + 20 * DAY);
  await record(store!, 1, T0);
  const chore = startRetention(
    store!,
    createConfig({ EVENT_RETENTION: '10d' }).retention,
    clock,
    createLogger('silent'),
    {
      firstAfterMs: 0,
      everyMs: 50,
    },
  );
  const count = async () => (await listEvents(store!.db, store!.caps, { after: 0, limit: 10 })).length;
  const deadline = Date.now() + 5_000;
  while ((await count()) > 0 && Date.now() < deadline) await delay(10);
  assert.equal(await count(), 0, 'the first round pruned the old event');
  await record(store!, 2, T0 + DAY);
  while ((await count()) > 0 && Date.now() < deadline) await delay(10);
  assert.equal(await count(), 0, 'a later round pruned the next one');
  await chore.stop();
  await record(store!, 3, T0 + DAY);
  await delay(150);
  assert.equal(await count(), 1, 'nothing is pruned after stop()');
});
