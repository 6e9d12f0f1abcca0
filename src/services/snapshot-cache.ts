// A value read from the store at most once per interval, however many callers ask: /metrics and
// /api/health are public and may be scraped hundreds of times at once, and their counts cost a scan.
import type { Clock } from '../clock.ts';

export interface SnapshotCache<T> {
  /** The latest value; loads it when it is older than the interval. Concurrent callers share one load. */
  get(): Promise<T>;
  /** How many times the loader has run (tests and the load guard read it). */
  readonly loads: number;
}

/**
 * A failed load is not cached (the next caller tries again), but callers arriving while it runs
 * share its failure: an outage costs one query per wave of callers, not one per caller.
 */
export function createSnapshotCache<T>(
  load: () => Promise<T>,
  intervalMs: number,
  clock: Pick<Clock, 'now'>,
): SnapshotCache<T> {
  let latest: { at: number; value: T } | null = null;
  let inFlight: Promise<T> | null = null;
  let loads = 0;
  return {
    get(): Promise<T> {
      if (latest !== null && clock.now() - latest.at < intervalMs) return Promise.resolve(latest.value);
      if (inFlight !== null) return inFlight;
      loads += 1;
      const started = clock.now();
      inFlight = load().then(
        (value) => {
          latest = { at: started, value };
          inFlight = null;
          return value;
        },
        (error: unknown) => {
          inFlight = null;
          throw error;
        },
      );
      return inFlight;
    },
    get loads() {
      return loads;
    },
  };
}
