// Reading events (the API's polling and stream) and building the events that use cases record.
import type { NewEvent } from '../domain/events.ts';
import { eventSeqBounds, latestEventSeq, listEvents, type EventQuery } from '../storage/events-list.ts';
import type { StoredEvent } from '../storage/events-repo.ts';
import type { Store } from '../storage/store.ts';

/** import.completed, with the counts of the import's response. */
export function importCompletedEvent(report: {
  importId: string;
  received: number;
  accepted: number;
  inserted: number;
  reactivated: number;
  alreadyTracked: number;
  duplicates: number;
  rejectedCount: number;
}): NewEvent {
  const { importId, received, accepted, inserted, reactivated, alreadyTracked, duplicates, rejectedCount } = report;
  return {
    type: 'import.completed',
    accountId: null,
    account: null,
    data: { importId, received, accepted, inserted, reactivated, alreadyTracked, duplicates, rejectedCount },
  };
}

export interface EventPage {
  data: StoredEvent[];
  /** Where the next poll starts: the last event's position, or the given one when nothing is new. */
  nextSeq: number;
}

export async function readEvents(store: Store, query: EventQuery): Promise<EventPage> {
  const data = await listEvents(store.reader, store.caps, query);
  return { data, nextSeq: data.at(-1)?.seq ?? query.after };
}

/** Where a reader without a cursor that only wants what comes next starts. */
export async function currentEventPosition(store: Store): Promise<number> {
  return latestEventSeq(store.reader);
}

/**
 * A cursor brought back by a client (forged, maybe: it is not signed), moved into the log: one
 * before the oldest event kept is where the log starts, and one past the newest is the newest (a
 * stream would otherwise wait, sending nothing, until the log caught up with a made-up number).
 */
export async function clampEventPosition(store: Store, after: number): Promise<number> {
  const { oldest, latest } = await eventSeqBounds(store.reader);
  if (latest === 0) return 0;
  return Math.min(Math.max(after, oldest - 1), latest);
}
