// The one interval helper: run a task every `intervalMs`, never two at once, and stop() waits for
// the running one (a long task may end early: its signal aborts on stop()). For chores on a fixed
// period (a heartbeat, lease renewals, retention, WAL checkpoints); work that is woken and waits
// on a policy runs on loop.ts instead.
//
// Real timers, not an injected clock: a chore must keep its period while a test's virtual clock
// stands still, and a test's virtual time must not run on because a chore is waiting.

export interface EveryOptions {
  /** Delay before the first run (default: one interval; 0 runs it at once). */
  firstAfterMs?: number;
  /** Told when a run throws; the next run happens on schedule anyway. */
  onError?: (error: unknown) => void;
}

export interface Every {
  /** Runs the task now, or joins the run already in progress. */
  runNow(): Promise<void>;
  /** No run starts after this; the running one's signal aborts, and this resolves when it has ended. */
  stop(): Promise<void>;
}

export function every(
  intervalMs: number,
  task: (stopping: AbortSignal) => Promise<void>,
  options: EveryOptions = {},
): Every {
  let running: Promise<void> | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const stopping = new AbortController();

  const run = (): Promise<void> => {
    if (stopped) return running ?? Promise.resolve();
    running ??= (async () => {
      try {
        await task(stopping.signal);
      } catch (error) {
        options.onError?.(error);
      } finally {
        running = null;
      }
    })();
    return running;
  };
  // Each run is scheduled when the last one was (not when it ended), so a slow run does not drift
  // the period; a run still going at its next turn is skipped rather than doubled.
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void run();
      schedule(intervalMs);
    }, ms);
    timer.unref();
  };
  if (options.firstAfterMs === 0) {
    void run();
    schedule(intervalMs);
  } else schedule(options.firstAfterMs ?? intervalMs);

  return {
    runNow: run,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      stopping.abort();
      await running;
    },
  };
}
