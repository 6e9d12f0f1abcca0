// One rate-limited endpoint as the tracker sees it: what the platform's last headers said is left
// in the window, minus the requests in flight. A request is sent only when that leaves room; when
// the state is unknown (first request, or the window has reset) one probe goes alone.
import type { RateLimitInfo } from '../platforms/types.ts';
import type { TrackerClock } from './tracker-clock.ts';

/** Waiting a little past the platform's reset absorbs clock skew between us and the platform. */
export const RESET_MARGIN_MS = 500;
/** The longest wait a platform's headers can impose on us; a later reset is not believed. */
export const MAX_WAIT_MS = 60 * 60_000;
/** The shortest pause after a 429, whatever its headers say. */
export const MIN_RETRY_MS = 1_000;

export interface GateSnapshot {
  limit: number | null;
  remaining: number | null;
  resetAt: string | null;
  blockedUntil: string | null;
  inFlight: number;
}

export class RateGate {
  private limit: number | null = null;
  private remaining: number | null = null;
  private resetAt = 0;
  private blockedUntil = 0;
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  /** Total time spent waiting for the window to reopen, in ms (for metrics). */
  waitedMs = 0;
  private readonly clock: TrackerClock;

  constructor(clock: TrackerClock) {
    this.clock = clock;
  }

  /** 0 when a request may go now; -1 when it must wait for one in flight; else ms to wait. */
  private delay(now: number): number {
    if (this.blockedUntil > now) return this.blockedUntil - now;
    const known = this.remaining !== null && now < this.resetAt + RESET_MARGIN_MS;
    if (!known) return this.inFlight === 0 ? 0 : -1;
    if ((this.remaining ?? 0) - this.inFlight > 0) return 0;
    if (this.inFlight > 0) return -1;
    return this.resetAt + RESET_MARGIN_MS - now;
  }

  /** Reserves a request if one may go now; the caller must call `settle` after the response. */
  tryAcquire(): boolean {
    if (this.delay(this.clock.now()) !== 0) return false;
    this.inFlight += 1;
    return true;
  }

  /**
   * Waits until a request may go, then reserves it. Returns false if `signal` aborted first, or,
   * with `windowWait: false`, as soon as going would mean waiting for the window to reopen (it
   * still waits for requests in flight, which settle within a request timeout).
   */
  async acquire(signal?: AbortSignal, options: { windowWait?: boolean } = {}): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false;
      const wait = this.delay(this.clock.now());
      if (wait === 0) {
        this.inFlight += 1;
        return true;
      }
      if (wait > 0 && options.windowWait === false) return false;
      if (wait < 0) {
        await new Promise<void>((resolve) => {
          const done = () => {
            signal?.removeEventListener('abort', done);
            resolve();
          };
          this.waiters.push(done);
          signal?.addEventListener('abort', done, { once: true });
        });
      } else {
        this.waitedMs += wait;
        await this.clock.sleep(wait, signal);
      }
    }
  }

  /** Ends a reserved request, with what its response said about the window (null if nothing). */
  settle(info: RateLimitInfo | null, retryAt: number | null = null): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const now = this.clock.now();
    // A reset in milliseconds instead of seconds, or a broken proxy, must not park the gate for
    // weeks (or overflow a timer): no wait is believed beyond MAX_WAIT_MS. A reset already past
    // on our clock (skew) still holds the gate a moment, so a 429 cannot loop at full speed.
    const bounded = (at: number) => Math.min(Math.max(at, now + MIN_RETRY_MS), now + MAX_WAIT_MS);
    if (info) {
      info = { ...info, resetAt: Math.min(info.resetAt, now + MAX_WAIT_MS) };
      // Responses can arrive out of order: within one window keep the smallest remaining.
      const sameWindow = this.remaining !== null && info.resetAt === this.resetAt;
      this.limit = info.limit;
      this.remaining = sameWindow ? Math.min(this.remaining ?? info.remaining, info.remaining) : info.remaining;
      this.resetAt = info.resetAt;
    }
    if (retryAt !== null) this.blockedUntil = Math.max(this.blockedUntil, bounded(retryAt));
    this.wake();
  }

  /** Gives back a reservation that was never used (nothing to send after all). */
  cancel(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  snapshot(): GateSnapshot {
    const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : null);
    return { limit: this.limit, remaining: this.remaining, resetAt: iso(this.resetAt), blockedUntil: iso(this.blockedUntil), inFlight: this.inFlight };
  }
}
