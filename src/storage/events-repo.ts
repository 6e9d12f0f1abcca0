// The event log: writes events (in commit order, with their webhook deliveries) and keeps the event
// rules' per-account marks (events-list.ts pages through them, retention-repo.ts prunes old ones).
import type { Insertable, Kysely } from 'kysely';
import { newId } from '../domain/ids.ts';
import { subscriptionMatches, type EventMarks, type EventType, type NewEvent } from '../domain/events.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { parseJson, parseStrings } from './json-column.ts';
import { pieceSizes, runByShape } from './prepared.ts';
import type { EventsTable } from './events-schema.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface StoredEvent {
  seq: number;
  id: string;
  type: EventType;
  createdAt: string;
  data: Record<string, unknown>;
}

const EVENT_COLUMNS = 7;

/**
 * Writes events and queues a delivery for every enabled endpoint that subscribes to each. Call it
 * last in the transaction of the change the events report: on PostgreSQL it makes event writers
 * take turns until they commit, so `seq` grows in commit order and a poller that has read up to a
 * `seq` can never later find a smaller one committed behind it. `only` sends an event to one
 * endpoint and no other (webhook.test).
 */
export async function recordEvents(
  trx: Db,
  caps: DialectCapabilities,
  events: readonly NewEvent[],
  now: number,
  only?: string,
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  await caps.serialize(trx, 'events');
  const stored: StoredEvent[] = [];
  const createdAt = new Date(now).toISOString();
  let at = 0;
  // A batch of any size runs as a few multi-row inserts of learnt shapes (no query built per call).
  for (const size of pieceSizes(events.length, Math.floor(Math.min(caps.maxParameters, 6_000) / EVENT_COLUMNS))) {
    const ids: string[] = [];
    const values: unknown[] = [];
    for (const event of events.slice(at, (at += size))) {
      const id = newId('evt');
      const data = event.account ? { account: event.account, ...event.data } : event.data;
      ids.push(id);
      values.push(
        id,
        event.type,
        now,
        event.accountId,
        event.account?.platform ?? null,
        event.account?.username.toLowerCase() ?? null,
        JSON.stringify(data),
      );
      stored.push({ seq: 0, id, type: event.type, createdAt, data });
    }
    const inserted = await runByShape<{ seq: number; id: string }>(trx, `insert-events:${size}`, values, (args) => {
      const rows: Record<string, unknown>[] = [];
      for (let k = 0; k < args.length; k += EVENT_COLUMNS) {
        const [id, type, created_at, account_id, platform, username_key, data] = args.slice(k, k + EVENT_COLUMNS);
        rows.push({ id, type, created_at, account_id, platform, username_key, data });
      }
      return trx
        .insertInto('events')
        .values(rows as unknown as Insertable<EventsTable>[])
        .returning(['seq', 'id']);
    });
    // Insert order is not promised for RETURNING: match the rows by id.
    const seqById = new Map(inserted.rows.map((r) => [r.id, Number(r.seq)]));
    for (const event of stored.slice(-size)) event.seq = seqById.get(event.id) ?? 0;
  }
  await queueDeliveries(trx, caps, events, stored, now, only);
  return stored;
}

async function queueDeliveries(
  trx: Db,
  caps: DialectCapabilities,
  events: readonly NewEvent[],
  stored: readonly StoredEvent[],
  now: number,
  only?: string,
): Promise<void> {
  let endpoints = trx.selectFrom('webhooks').select(['id', 'events', 'tags']).where('enabled', '=', 1);
  if (only !== undefined) endpoints = endpoints.where('id', '=', only);
  const hooks = (await endpoints.execute()).map((h) => ({
    id: h.id,
    events: parseStrings(h.events),
    tags: parseStrings(h.tags),
  }));
  if (hooks.length === 0) return;
  const tagsByAccount = hooks.some((h) => h.tags.length > 0)
    ? await accountTags(trx, events)
    : new Map<number, string[]>();
  const rows: {
    webhook_id: string;
    event_seq: number;
    status: string;
    attempts: number;
    next_attempt_at: number;
    created_at: number;
  }[] = [];
  events.forEach((event, index) => {
    const seq = stored[index]?.seq;
    if (seq === undefined) return;
    const tags = event.accountId === null ? null : (tagsByAccount.get(event.accountId) ?? []);
    for (const hook of hooks) {
      if (only !== undefined || subscriptionMatches(hook, event.type, tags))
        rows.push({
          webhook_id: hook.id,
          event_seq: seq,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          created_at: now,
        });
    }
  });
  const chunk = Math.floor(Math.min(caps.maxParameters, 6_000) / 6);
  for (let i = 0; i < rows.length; i += chunk)
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + chunk))
      .execute();
}

async function accountTags(trx: Db, events: readonly NewEvent[]): Promise<Map<number, string[]>> {
  const ids = [...new Set(events.flatMap((e) => (e.accountId === null ? [] : [e.accountId])))];
  const map = new Map<number, string[]>();
  for (let i = 0; i < ids.length; i += 1_000) {
    const rows = await trx
      .selectFrom('accounts')
      .select(['id', 'tags'])
      .where('id', 'in', ids.slice(i, i + 1_000))
      .execute();
    for (const row of rows) map.set(row.id, parseStrings(row.tags));
  }
  return map;
}

/** The rules' memory of these accounts. */
export async function loadEventMarks(db: Db, accountIds: readonly number[]): Promise<Map<number, EventMarks>> {
  const marks = new Map<number, EventMarks>();
  for (let i = 0; i < accountIds.length; i += 1_000) {
    const rows = await db
      .selectFrom('event_marks')
      .selectAll()
      .where('account_id', 'in', accountIds.slice(i, i + 1_000))
      .execute();
    for (const row of rows) {
      marks.set(row.account_id, {
        milestoneFloor: Number(row.milestone_floor),
        points: parseJson(row.points, []),
        lastSpikeAt: row.last_spike_at === null ? null : Number(row.last_spike_at),
      });
    }
  }
  return marks;
}

export async function saveEventMarks(
  db: Db,
  caps: DialectCapabilities,
  marks: ReadonlyMap<number, EventMarks>,
): Promise<void> {
  const rows = [...marks].map(([accountId, m]) => ({
    account_id: accountId,
    milestone_floor: m.milestoneFloor,
    points: JSON.stringify(m.points),
    last_spike_at: m.lastSpikeAt,
  }));
  const chunk = Math.floor(Math.min(caps.maxParameters, 6_000) / 4);
  for (let i = 0; i < rows.length; i += chunk) {
    await db
      .insertInto('event_marks')
      .values(rows.slice(i, i + chunk))
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet((eb) => ({
          milestone_floor: eb.ref('excluded.milestone_floor'),
          points: eb.ref('excluded.points'),
          last_spike_at: eb.ref('excluded.last_spike_at'),
        })),
      )
      .execute();
  }
}
