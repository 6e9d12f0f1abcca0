// Small timing helpers the limits share: do a chore at most once per interval (pruning old
// windows), and log a warning at most once per interval (a limit that fails open says so without
// flooding the log when the store is down).

/** A gate that opens at most once per `intervalMs`: `due(now)` is true the first time in each interval. */
export function oncePer(intervalMs: number): (now: number) => boolean {
  let last = Number.NEGATIVE_INFINITY;
  return (now) => {
    if (now - last < intervalMs) return false;
    last = now;
    return true;
  };
}

export interface WarnLog {
  warn(object: object, message: string): void;
}

/** How often a limit may repeat the same warning. */
export const WARN_EVERY_MS = 10_000;

/** Logs `message` (with the error, if any) at most once per WARN_EVERY_MS of `now()`. */
export function throttledWarning(log: WarnLog, message: string, now: () => number): (error?: unknown) => void {
  const due = oncePer(WARN_EVERY_MS);
  return (error) => {
    if (due(now())) log.warn(error === undefined ? {} : { err: error }, message);
  };
}
