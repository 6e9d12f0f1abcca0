// Retention: events older than EVENT_RETENTION go, except those an endpoint still has to receive;
// finished deliveries and their attempts of the same age go with them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NewEvent } from '../../src/domain/events.ts';
import { listEvents, purgeEvents, recordEvents } from '../../src/storage/events-repo.ts';
import { freshStores } from '../helpers/store-url.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const event = (n: number): NewEvent => ({ type: 'import.completed', accountId: null, account: null, data: { n } });

test('purging keeps recent events and those still waiting for delivery', async (t) => {
  const [store] = await freshStores(t);
  const db = store!.db;
  await db
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
  const [delivered] = await db.transaction().execute((trx) => recordEvents(trx, store!.caps, [event(1)], T0));
  const [waiting] = await db.transaction().execute((trx) => recordEvents(trx, store!.caps, [event(2)], T0 + DAY));
  const [recent] = await db.transaction().execute((trx) => recordEvents(trx, store!.caps, [event(3)], T0 + 40 * DAY));
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivered', finished_at: T0 })
    .where('event_seq', '=', delivered!.seq)
    .execute();
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'delivered', finished_at: T0 + 40 * DAY })
    .where('event_seq', '=', recent!.seq)
    .execute();

  assert.equal(await purgeEvents(db, T0 + 10 * DAY), 1);
  assert.deepEqual(
    (await listEvents(db, { after: 0, limit: 10 })).map((e) => e.id),
    [waiting!.id, recent!.id],
  );
  const left = await db.selectFrom('webhook_deliveries').select(['event_seq', 'status']).orderBy('event_seq').execute();
  assert.deepEqual(
    left.map((d) => [Number(d.event_seq), d.status]),
    [
      [waiting!.seq, 'pending'],
      [recent!.seq, 'delivered'],
    ],
  );
});
