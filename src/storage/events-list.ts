// Pages through the event log by cursor, oldest first. A filter is served from the events'
// indexes, by platform and type (events of no account apart), or by account and type, in seq order:
// a rare type or an account's few events are found without walking the log, and a page holds
// `limit` events unless nothing newer matches.
import { sql, type Kysely } from 'kysely';
import { EVENT_TYPES, type EventType } from '../domain/events.ts';
import { PLATFORMS } from '../domain/platforms.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import type { StoredEvent } from './events-repo.ts';
import { parseJson } from './json-column.ts';
import { firstOfArms, type Arm, type ArmOrder } from './list-arms.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface EventQuery {
  after: number;
  limit: number;
  /** The newest `limit` events after `after` (still returned oldest first), for pages that show the latest. */
  newest?: boolean | undefined;
  types?: readonly string[] | undefined;
  platform?: string | undefined;
  usernameKey?: string | undefined;
}

const SEQ_ORDER: ArmOrder = { value: sql`seq`, direction: 'asc' };
const SEQ_NEWEST: ArmOrder = { value: sql`seq`, direction: 'desc' };

/**
 * One arm per platform and type the filter allows, from the index that leads with the filtered
 * columns: by account (platform, username) or by platform, each with the type. An absent type is
 * every type; an absent platform is every platform, and (without a username) no platform at all.
 * Each arm then has two or three equal columns: without statistics PostgreSQL expects a row or
 * two of each and reads them in the index's order, where for one column alone it would rather
 * gather them all through a bitmap and sort them.
 */
function eventArms(caps: DialectCapabilities, query: EventQuery): Arm[] {
  const types = query.types && query.types.length > 0 ? query.types : EVENT_TYPES;
  const arms: Arm[] = [];
  if (query.usernameKey !== undefined) {
    const from = sql`events ${caps.indexedBy('events_by_account')}`;
    for (const platform of query.platform !== undefined ? [query.platform] : PLATFORMS)
      for (const type of types)
        arms.push({
          from,
          where: [sql`platform = ${platform}`, sql`username_key = ${query.usernameKey}`, sql`type = ${type}`],
        });
    return arms;
  }
  const byKind = sql`events ${caps.indexedBy('events_by_kind')}`;
  for (const platform of query.platform !== undefined ? [query.platform] : PLATFORMS)
    for (const type of types) arms.push({ from: byKind, where: [sql`platform = ${platform}`, sql`type = ${type}`] });
  if (query.platform === undefined) {
    // Events about no account (an import's): their own partial index, in seq order by type.
    const unattached = sql`events ${caps.indexedBy('events_unattached')}`;
    for (const type of types) arms.push({ from: unattached, where: [sql`platform is null`, sql`type = ${type}`] });
  }
  return arms;
}

const filtered = (query: EventQuery) =>
  (query.types !== undefined && query.types.length > 0) ||
  query.platform !== undefined ||
  query.usernameKey !== undefined;

/** The positions of a filtered page, from the filter's index (exported so that a test can read its plan). */
export function filteredEventSeqs(caps: DialectCapabilities, query: EventQuery) {
  const arms = eventArms(caps, query).map((arm) => ({ ...arm, where: [...arm.where, sql`seq > ${query.after}`] }));
  return firstOfArms(caps, query.newest ? SEQ_NEWEST : SEQ_ORDER, arms, query.limit);
}

/** A page of events after `after`, oldest first. */
export async function listEvents(db: Db, caps: DialectCapabilities, query: EventQuery): Promise<StoredEvent[]> {
  let select = db.selectFrom('events').select(['seq', 'id', 'type', 'created_at', 'data']);
  if (filtered(query)) {
    const page = await filteredEventSeqs(caps, query).execute(db);
    if (page.rows.length === 0) return [];
    select = select.where(
      'seq',
      'in',
      page.rows.map((r) => Number(r.id)),
    );
  } else {
    select = query.newest
      ? select.where('seq', 'in', (eb) =>
          eb
            .selectFrom('events')
            .select('seq')
            .where('seq', '>', query.after)
            .orderBy('seq', 'desc')
            .limit(query.limit),
        )
      : select.where('seq', '>', query.after).limit(query.limit);
  }
  const rows = await select.orderBy('seq').execute();
  return rows.map((row) => ({
    seq: Number(row.seq),
    id: row.id,
    type: row.type as EventType,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    data: parseJson(row.data, {}),
  }));
}

/**
 * The oldest and newest `seq` kept (both 0 when there is no event), from the primary key's two
 * ends: two queries, as SQLite reads min() or max() alone from the index but scans for both at once.
 */
export async function eventSeqBounds(db: Db): Promise<{ oldest: number; latest: number }> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.min('seq').as('seq'))
    .executeTakeFirst();
  return { oldest: Number(row?.seq ?? 0), latest: await latestEventSeq(db) };
}

/** The newest `seq`, or 0 when there is no event: where a stream without a cursor starts. */
export async function latestEventSeq(db: Db): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}
