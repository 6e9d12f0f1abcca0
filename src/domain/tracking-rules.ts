// How a check's outcome becomes an account state and a next check time. Pure, so the tracker's
// policy reads in one place: gone accounts are re-checked slowly, failures back off with jitter.
import type { AccountStatus } from './account.ts';

/** Consecutive failed checks after which an account shows `error` (it keeps being retried). */
export const FAILURES_BEFORE_ERROR = 5;
/** not_found and suspended accounts are re-checked this many intervals apart. */
export const GONE_INTERVALS = 6;
/** First retry after a failed check; doubles per failure, capped at the interval. */
export const FAILURE_BASE_DELAY_MS = 60_000;

export type CheckVerdict =
  | { kind: 'found'; protected: boolean }
  | { kind: 'not_found'; reason: string }
  | { kind: 'suspended'; reason: string }
  | { kind: 'failed'; reason: string };

export interface StateChange {
  status: AccountStatus;
  /** undefined keeps the stored reason (a passing failure does not erase why an account is gone). */
  statusReason: string | null | undefined;
  consecutiveFailures: number;
  lastError: string | null;
  /** Milliseconds from now until the next check. */
  delayMs: number;
}

/**
 * The new state after a check. A failure keeps the last known state until it has repeated
 * FAILURES_BEFORE_ERROR times; `random` is injected so the jitter can be tested.
 */
export function nextState(
  previous: AccountStatus,
  failures: number,
  verdict: CheckVerdict,
  intervalMs: number,
  random: () => number,
): StateChange {
  switch (verdict.kind) {
    case 'found':
      return {
        status: verdict.protected ? 'protected' : 'active',
        statusReason: verdict.protected ? 'posts are visible to approved followers only' : null,
        consecutiveFailures: 0,
        lastError: null,
        delayMs: intervalMs,
      };
    case 'not_found':
    case 'suspended':
      return {
        status: verdict.kind,
        statusReason: verdict.reason,
        consecutiveFailures: 0,
        lastError: null,
        delayMs: intervalMs * GONE_INTERVALS,
      };
    case 'failed': {
      const count = failures + 1;
      return {
        status: count >= FAILURES_BEFORE_ERROR ? 'error' : previous,
        statusReason: count >= FAILURES_BEFORE_ERROR ? `${count} checks in a row failed: ${verdict.reason}` : undefined,
        consecutiveFailures: count,
        lastError: verdict.reason,
        delayMs: backoffDelay(count - 1, FAILURE_BASE_DELAY_MS, intervalMs, random),
      };
    }
  }
}

/** Capped exponential backoff with full jitter: uniform in [0, min(cap, base·2^attempt)]. */
export function backoffDelay(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
