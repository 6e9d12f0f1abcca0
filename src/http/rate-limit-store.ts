// The per-key request counter of @fastify/rate-limit, kept in the store so that every `perch api`
// process counts against the same budget. Windows are fixed and aligned to multiples of their
// length on the app's clock: every process agrees on where one starts and when it resets.
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Kysely } from 'kysely';
import type { Clock } from '../services/clock.ts';
import { countHits, pruneRateCounters, windowStartOf } from '../storage/api-limits-repo.ts';
import type { Database } from '../storage/schema.ts';

/**
 * A process takes counts from the store in blocks and hands them to requests one by one: a busy key
 * costs one write per block, not one per request (on SQLite a write per request cut the throughput
 * of cheap reads by two thirds). A block is a range of the shared count that no other process
 * holds, so together they never let more than the limit through. A block is at most 1/SPREAD of
 * what the process last saw left, so near the limit blocks shrink to single counts, and a process
 * that stops getting a key's requests strands at most that share of the key's minute.
 */
const SPREAD = 16;
const MAX_BLOCK = 100;
/**
 * How long requests wait for a block. On SQLite every write queues behind the one writer, so
 * while an import holds it for seconds no block can be taken; past this the requests go on
 * uncounted rather than stall (the block still lands later, and is stranded).
 */
const COUNT_DEADLINE_MS = 100;
const PRUNE_EVERY_MS = 60_000;
const WARN_EVERY_MS = 10_000;
const MAX_LEASES = 10_000;

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** The counts this process holds of one bucket's window: `next` to `last`. */
interface Lease {
  windowStart: number;
  next: number;
  last: number;
  /** The block being taken from the store; requests arriving meanwhile wait for it. */
  taking: Promise<void> | null;
}

export interface RateLimitStoreDeps {
  db: Kysely<Database>;
  clock: Clock;
  log: FastifyBaseLogger;
}

/**
 * The store class the plugin instantiates (it passes its own options, so the dependencies are
 * closed over). A failure to count is passed to the plugin, which is registered with
 * `skipOnError`: the request is let through, not refused. The counter fails open because it only
 * fails when the store is unreachable or busy, and then the route itself answers 503 (or, for a
 * slow write, is answered from the reader as it would have been without a limit).
 */
export function sharedRateLimitStore({ db, clock, log }: RateLimitStoreDeps): FastifyRateLimitStoreCtor {
  // Shared by the store and its per-route children (their buckets are prefixed apart).
  const leases = new Map<string, Lease>();
  const state = { prunedAt: 0, warnedAt: 0, longestWindowMs: 0 };

  const prune = (now: number) => {
    if (now - state.prunedAt < PRUNE_EVERY_MS) return;
    state.prunedAt = now;
    for (const [bucket, lease] of leases) if (lease.windowStart + state.longestWindowMs <= now) leases.delete(bucket);
    // Ended windows only (none is longer than the longest counted so far), with one window of
    // slack for processes whose clocks disagree a little. The delete scans the table, which this
    // keeps to a few windows' rows.
    pruneRateCounters(db, now - 2 * state.longestWindowMs).catch((error: unknown) => log.warn({ err: error }, 'could not prune request counters'));
  };

  const takeBlock = async (bucket: string, lease: Lease, max: number, now: number): Promise<void> => {
    const size = Math.max(1, Math.min(MAX_BLOCK, Math.floor((max - lease.last) / SPREAD)));
    try {
      const last = await withDeadline(countHits(db, bucket, lease.windowStart, size), COUNT_DEADLINE_MS);
      lease.next = last - size + 1;
      lease.last = last;
    } finally {
      lease.taking = null;
    }
    prune(now);
  };

  /** The request's place in the bucket's window (over `max`: refused), and the ms until the window ends. */
  const take = async (bucket: string, windowMs: number, max: number): Promise<{ current: number; ttl: number }> => {
    state.longestWindowMs = Math.max(state.longestWindowMs, windowMs);
    for (;;) {
      const now = clock.now();
      const windowStart = windowStartOf(now, windowMs);
      let lease = leases.get(bucket);
      if (lease === undefined || lease.windowStart < windowStart) {
        if (leases.size >= MAX_LEASES) leases.clear();
        lease = { windowStart, next: 1, last: 0, taking: null };
        leases.set(bucket, lease);
      }
      const ttl = lease.windowStart + windowMs - now;
      // Within a window the count only grows: once past the limit, refused without asking the store.
      if (lease.next <= lease.last || lease.last >= max) return { current: lease.next++, ttl };
      lease.taking ??= takeBlock(bucket, lease, max, now);
      await lease.taking;
    }
  };

  const warn = (error: unknown) => {
    const now = clock.now();
    if (now - state.warnedAt < WARN_EVERY_MS) return;
    state.warnedAt = now;
    log.warn({ err: error }, 'request counter unavailable; requests are let through uncounted');
  };

  class SharedRateLimitStore implements FastifyRateLimitStore {
    private readonly prefix: string;

    /**
     * The plugin passes its options, which the closure already covers. `prefix` keeps the counts of
     * a route with its own limit apart from the global ones.
     */
    constructor(_options: FastifyRateLimitOptions, prefix = '') {
      this.prefix = prefix;
    }

    incr(key: string, callback: Callback, timeWindow = 60_000, max = Number.POSITIVE_INFINITY): void {
      take(this.prefix + key, timeWindow, max).then(
        (result) => callback(null, result),
        (error: unknown) => {
          warn(error);
          callback(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }

    child(options: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      // The plugin passes the route's merged limit options with the route under `routeInfo`
      // (its typings say the route itself).
      const route = (options as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo ?? {};
      return new SharedRateLimitStore(options, `${String(route.method)} ${String(route.url)}|`);
    }
  }
  return SharedRateLimitStore;
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`request count took over ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
