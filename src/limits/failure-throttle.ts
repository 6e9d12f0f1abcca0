// The failed-authentication throttle: counts the bad keys a client presents in fixed minutes
// aligned on the clock, in the store, so the count holds across every `perch api` process.
//
// States of one client in one minute:
//   COUNTING   fewer than N failures: a bad key is answered 401 and counted.
//   THROTTLED  N failures reached: every further bad key is answered 429 with Retry-After (until
//              the minute ends), so a client learns nothing from its failures past the limit.
//   STALLED    the count took over STALL_MS (an import holding SQLite's writer, a PostgreSQL row
//              lock held by a long transaction): the failure is answered 401 without waiting, and
//              the count, when it lands, still moves the client to THROTTLED. A refusal (a key
//              revoked a moment ago) is never held up behind someone else's write.
// In both states a valid key is served: the throttle limits failures, never successes, so a client
// that shares an address with a failing one (a NAT, an office, a proxy without TRUST_PROXY) is not
// locked out. Guessing is not what it guards against (a key has 256 random bits); it slows a client
// that keeps failing and keeps its failures cheap: once THROTTLED is known here, a failure is not
// written again. A new minute starts in COUNTING; ended minutes are pruned.
import type { Kysely } from 'kysely';
import { pruneAuthFailures, recordAuthFailure, windowStartOf } from '../storage/api-limits-repo.ts';
import type { Database } from '../storage/schema.ts';
import { oncePer, throttledWarning, type WarnLog } from './pacing.ts';
import { STALL_MS } from './request-blocks.ts';

export interface FailureThrottle {
  /**
   * Counts a failed authentication of `client` (see clientKey). Returns the seconds to wait when
   * the client is THROTTLED (this failure's outcome is then withheld: 429, not 401), else 0.
   */
  recordFailure(client: string, now: number): Promise<number>;
}

const WINDOW_MS = 60_000;
const PRUNE_EVERY_MS = 60_000;
/** Clients remembered as THROTTLED; beyond this the memory starts over (the store still counts). */
const MAX_REMEMBERED = 10_000;

const secondsUntil = (end: number, now: number): number => Math.max(1, Math.ceil((end - now) / 1000));

/** The throttle on the shared counters. It fails open: a failure it cannot count is answered 401. */
export class StoreFailureThrottle implements FailureThrottle {
  /** Clients this process knows to be THROTTLED, with the end of their minute. */
  private readonly throttled = new Map<string, number>();
  private readonly pruneDue = oncePer(PRUNE_EVERY_MS);
  private readonly warnUnavailable: (error?: unknown) => void;
  private readonly warnStalled: (error?: unknown) => void;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly limit: number,
    private readonly log: WarnLog,
    now: () => number = Date.now,
  ) {
    this.warnUnavailable = throttledWarning(
      log,
      'failed-authentication counts unavailable; failures are answered without being counted',
      now,
    );
    this.warnStalled = throttledWarning(
      log,
      `a failed-authentication count took over ${STALL_MS} ms; failures are answered while it lands`,
      now,
    );
  }

  async recordFailure(client: string, now: number): Promise<number> {
    const start = windowStartOf(now, WINDOW_MS);
    const end = start + WINDOW_MS;
    const until = this.throttled.get(client);
    if (until !== undefined && until > now) return secondsUntil(until, now);
    const counted = recordAuthFailure(this.db, client, start).then(
      (failures) => {
        this.prune(now);
        // Within a minute the count only grows: once at the limit, THROTTLED until the minute ends.
        if (failures >= this.limit) {
          if (this.throttled.size >= MAX_REMEMBERED) this.throttled.clear();
          this.throttled.set(client, end);
        }
        return failures;
      },
      (error: unknown) => {
        this.warnUnavailable(error);
        return 0;
      },
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), STALL_MS);
      timer.unref();
    });
    const failures = await Promise.race([counted, stalled]).finally(() => clearTimeout(timer));
    if (failures === null) {
      this.warnStalled();
      return 0;
    }
    return failures > this.limit ? secondsUntil(end, now) : 0;
  }

  private prune(now: number): void {
    if (!this.pruneDue(now)) return;
    for (const [client, until] of this.throttled) if (until <= now) this.throttled.delete(client);
    // One window of slack, for processes whose clocks disagree a little.
    pruneAuthFailures(this.db, windowStartOf(now, WINDOW_MS) - WINDOW_MS).catch((error: unknown) =>
      this.log.warn({ err: error }, 'could not prune failed-authentication counts'),
    );
  }
}
