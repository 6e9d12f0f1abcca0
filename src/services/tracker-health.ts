// What health reports about tracking, read from the store: accounts due per platform, whether X
// accounts are tracked, and every tracker process recently heard of (from their heartbeats).
import { PLATFORMS } from '../domain/platforms.ts';
import type { Store } from '../storage/store.ts';
import { recentTrackers, type TrackerProcess } from '../storage/tracker-processes-repo.ts';
import { countByStatus, countDue, tracksAny } from '../storage/tracking-repo.ts';

export type { TrackerProcess };

export interface TrackerCounts {
  due: Record<string, number>;
  xTracked: boolean;
  trackers: TrackerProcess[];
}

/** Counts as of `now`, listing trackers seen since `seenSince`. */
export async function readTrackerCounts(store: Store, now: number, seenSince: number): Promise<TrackerCounts> {
  const [due, xTracked, trackers] = await Promise.all([
    countDue(store.reader, PLATFORMS, now),
    tracksAny(store.reader, 'x'),
    recentTrackers(store.reader, seenSince),
  ]);
  return { due, xTracked, trackers };
}

/** The store answers (a trivial query on the reader) within `timeoutMs`. */
export async function pingStore(store: Store, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      store.caps.ping(store.reader),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('store timeout')), timeoutMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Tracked accounts per platform and status (a grouped count: callers cache it at scale). */
export function countAccountsByStatus(store: Store): Promise<{ platform: string; status: string; n: number }[]> {
  return countByStatus(store.reader);
}
