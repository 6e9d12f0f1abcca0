// Time as a dependency, one type per purpose: `Clock` reads the time (logic that stamps or
// expires things), `SleepingClock` also waits (logic that schedules: the tracker's loop, rate-limit
// waits, retries). Tests pass clocks they control, so they never sleep for real.

export interface Clock {
  now(): number;
}

export interface SleepingClock extends Clock {
  /** Resolves after `ms` (or at once when `signal` aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: SleepingClock = {
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
