// Time for the tracker: now() and an abortable sleep. Tests pass a clock whose sleep moves virtual
// time forward at once, so rate-limit waits and backoff never sleep for real.
import type { Clock } from '../services/clock.ts';

export interface TrackerClock extends Clock {
  /** Resolves after `ms` (or at once when `signal` aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemTrackerClock: TrackerClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};
