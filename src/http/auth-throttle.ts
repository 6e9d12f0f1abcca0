// Throttles clients that keep presenting bad keys: after N failures in a minute they get 429 until
// the minute is over, even with a good key, which makes guessing keys pointless. The failures are
// counted in the store, in fixed minutes aligned on the clock, so the limit holds across every
// `perch api` process.
import type { FastifyBaseLogger } from 'fastify';
import { authFailures, pruneAuthFailures, recordAuthFailure, windowStartOf } from '../storage/api-limits-repo.ts';
import type { Store } from '../storage/store.ts';

export interface FailureThrottle {
  /** Seconds the client must wait before a key it presents is even looked at, or 0 when it may try. */
  retryAfter(client: string, now: number): Promise<number>;
  /**
   * Counts a failed authentication. Returns the seconds to wait when this failure went over the
   * limit (other processes counted failures meanwhile): its outcome is then withheld, 429 rather
   * than 401, so no client ever learns more than N outcomes a minute. Otherwise 0.
   */
  recordFailure(client: string, now: number): Promise<number>;
}

const WINDOW_MS = 60_000;
/**
 * How long a client found without failures is believed to have none. This saves the one read a
 * request would cost (most clients never fail), at a bounded price: for this long after a client
 * reached the limit through other processes, a process that had seen it clean still accepts its
 * good keys. Bad keys are never let through on that belief: every failure is counted in the store,
 * and one over the limit is answered 429 (see recordFailure), so guesses stay capped exactly.
 */
const CLEAN_TTL_MS = 1_000;
const PRUNE_EVERY_MS = 60_000;
const WARN_EVERY_MS = 10_000;

const secondsUntil = (end: number, now: number): number => Math.max(1, Math.ceil((end - now) / 1000));

/**
 * The throttle on the shared counters. Like the request counter it fails open: if the store cannot
 * be read, the client is let through to authentication, which then needs the store itself.
 */
export class StoreFailureThrottle implements FailureThrottle {
  /** What this process knows of a client: clean until `until`, or refused until its window ends. */
  private readonly known = new Map<string, { blocked: boolean; until: number }>();
  /** Bumped by every failure, so a read that started before one does not record the client clean. */
  private generation = 0;
  private prunedAt = 0;
  private warnedAt = 0;

  private readonly store: Pick<Store, 'db' | 'reader'>;
  private readonly limit: number;
  private readonly log: Pick<FastifyBaseLogger, 'warn'>;

  constructor(store: Pick<Store, 'db' | 'reader'>, limit: number, log: Pick<FastifyBaseLogger, 'warn'>) {
    this.store = store;
    this.limit = limit;
    this.log = log;
  }

  async retryAfter(client: string, now: number): Promise<number> {
    const known = this.known.get(client);
    if (known !== undefined && now < known.until) return known.blocked ? secondsUntil(known.until, now) : 0;
    const start = windowStartOf(now, WINDOW_MS);
    const generation = this.generation;
    let failures: number;
    try {
      failures = await authFailures(this.store.reader, client, start);
    } catch (error) {
      this.warn(now, error);
      return 0;
    }
    if (failures >= this.limit) {
      this.remember(client, true, start + WINDOW_MS);
      return secondsUntil(start + WINDOW_MS, now);
    }
    if (failures === 0 && generation === this.generation) this.remember(client, false, now + CLEAN_TTL_MS);
    else this.known.delete(client);
    return 0;
  }

  async recordFailure(client: string, now: number): Promise<number> {
    this.generation += 1;
    this.known.delete(client);
    const start = windowStartOf(now, WINDOW_MS);
    let failures: number;
    try {
      failures = await recordAuthFailure(this.store.db, client, start);
    } catch (error) {
      this.warn(now, error);
      return 0;
    }
    this.prune(now);
    // Within a window the count only grows: once at the limit, refused until the window ends.
    if (failures >= this.limit) this.remember(client, true, start + WINDOW_MS);
    return failures > this.limit ? secondsUntil(start + WINDOW_MS, now) : 0;
  }

  private remember(client: string, blocked: boolean, until: number): void {
    if (this.known.size >= 10_000) this.known.clear();
    this.known.set(client, { blocked, until });
  }

  private prune(now: number): void {
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    // One window of slack, for processes whose clocks disagree a little.
    pruneAuthFailures(this.store.db, windowStartOf(now, WINDOW_MS) - WINDOW_MS).catch((error: unknown) => this.log.warn({ err: error }, 'could not prune failed-authentication counts'));
  }

  private warn(now: number, error: unknown): void {
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    this.log.warn({ err: error }, 'failed-authentication counts unavailable; clients are let through to authentication');
  }
}
