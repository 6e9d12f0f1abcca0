// What a platform's answer tells a rate gate (rate-gate.ts), as values the store can take: its
// rate-limit headers bounded to believable counts and times, and a 429's retry time.

/** The longest wait a platform's headers can impose on us; a later reset is not believed. */
export const MAX_WAIT_MS = 60 * 60_000;
/** The shortest pause after a 429, whatever its headers say. */
export const MIN_RETRY_MS = 1_000;
/** Counts in headers beyond this are not believed (and would not fit the store's bigint). */
const MAX_COUNT = 1_000_000_000;
/** Resets this close together are one window (as the store judges it, rate-windows-repo.ts). */
export const SAME_WINDOW_MS = 2_000;

/** What a platform's answer said about its window (its rate-limit headers). */
export interface WindowHeaders {
  limit: number;
  remaining: number;
  resetAt: number;
}

/**
 * The answer as the store records it. A reset in milliseconds instead of seconds, or a broken
 * proxy, must not park the gate for weeks (or overflow a timer): no wait is believed beyond
 * MAX_WAIT_MS. A retry time already past on our clock (skew) still holds the gate a moment, so a
 * 429 cannot loop at full speed.
 */
export function boundedAnswer(
  info: WindowHeaders | null,
  retryAt: number | null,
  now: number,
): { report: WindowHeaders | null; blockedUntil: number | null } {
  const count = (n: number) => Math.min(Math.max(0, Math.floor(n)), MAX_COUNT);
  const report = info
    ? { limit: count(info.limit), remaining: count(info.remaining), resetAt: Math.min(info.resetAt, now + MAX_WAIT_MS) }
    : null;
  const blockedUntil = retryAt === null ? null : Math.min(Math.max(retryAt, now + MIN_RETRY_MS), now + MAX_WAIT_MS);
  return { report, blockedUntil };
}

export function sameWindow(a: number, b: number): boolean {
  return Math.abs(a - b) < SAME_WINDOW_MS;
}
