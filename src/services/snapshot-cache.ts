// A value read from the store at most once per interval, however many callers ask: /metrics and
// /api/health are public and may be scraped hundreds of times at once, and their counts cost a scan.
import type { Clock } from '../clock.ts';

export interface SnapshotOptions {
  /**
   * Serve the last value past the interval while a new one loads in the background (only the very
   * first caller waits); a failed background load is handed here and the old value kept.
   */
  onStaleError?: (error: unknown) => void;
}

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
  options: SnapshotOptions = {},
): SnapshotCache<T> {
  let latest: { at: number; value: T } | null = null;
  let inFlight: Promise<T> | null = null;
  let loads = 0;
  return {
    get(): Promise<T> {
      if (latest !== null && clock.now() - latest.at < intervalMs) return Promise.resolve(latest.value);
      if (latest !== null && options.onStaleError) {
        // Stale while revalidating: the last value now, a fresh one for the callers after the load.
        const stale = latest.value;
        if (inFlight === null) reload().catch(options.onStaleError);
        return Promise.resolve(stale);
      }
      return inFlight ?? reload();
    },
    get loads() {
      return loads;
    },
  };

  function reload(): Promise<T> {
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
  }
}
