// The per-key request counter of @fastify/rate-limit, kept in the store so that every `perch api`
// process counts against the same budget. Windows are fixed and aligned to multiples of their
// length on the app's clock: every process agrees on where one starts and when it resets.
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
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
 * How long requests wait for a block before the store counts as stalled (on SQLite every write
 * queues behind the one writer, so an import holds it for seconds; on PostgreSQL a pool or a row
 * lock held by a long transaction does the same). Well above a healthy write, even on a loaded
 * machine: a block that comes back in time is exact across processes. Past it, requests stop
 * waiting and the process counts on alone from the count it last saw; the block still lands, and
 * pays for the requests let through meanwhile (see `Lease.owed`).
 */
export const STALL_MS = 500;
const PRUNE_EVERY_MS = 60_000;
const WARN_EVERY_MS = 10_000;
const MAX_LEASES = 10_000;

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** A block being taken from the store; a lease has at most one, however slow the store is. */
interface Block {
  /** Settles when the block lands (null) or fails (the error); never rejects. */
  settled: Promise<Error | null>;
  /** Resolves once the block has taken STALL_MS (never, if it settles first). */
  stalled: Promise<void>;
  isStalled: boolean;
}

/** The counts this process holds of one bucket's window: `next` to `last`. */
interface Lease {
  windowStart: number;
  next: number;
  last: number;
  /**
   * Requests let through while a block was stalled and not yet paid for: the next block that lands
   * takes their counts first, so the shared count holds every request let through and nothing more.
   */
  owed: number;
  /** The block being taken from the store; requests arriving meanwhile wait for it, up to STALL_MS. */
  pending: Block | null;
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
 * fails when the store is unreachable or busy, and then the route itself answers 503. A stalled
 * store is no failure: the process counts on alone until the write lands (see STALL_MS).
 */
export function sharedRateLimitStore({ db, clock, log }: RateLimitStoreDeps): FastifyRateLimitStoreCtor {
  // Shared by the store and its per-route children (their buckets are prefixed apart).
  const leases = new Map<string, Lease>();
  const state = { prunedAt: 0, warnedAt: 0, stallWarnedAt: 0, longestWindowMs: 0 };

  const prune = (now: number) => {
    if (now - state.prunedAt < PRUNE_EVERY_MS) return;
    state.prunedAt = now;
    for (const [bucket, lease] of leases) if (lease.windowStart + state.longestWindowMs <= now) leases.delete(bucket);
    // Ended windows only (none is longer than the longest counted so far), with one window of
    // slack for processes whose clocks disagree a little. The delete scans the table, which this
    // keeps to a few windows' rows.
    pruneRateCounters(db, now - 2 * state.longestWindowMs).catch((error: unknown) => log.warn({ err: error }, 'could not prune request counters'));
  };

  const warn = (error: unknown) => {
    const now = clock.now();
    if (now - state.warnedAt < WARN_EVERY_MS) return;
    state.warnedAt = now;
    log.warn({ err: error }, 'request counter unavailable; requests are let through uncounted');
  };

  const warnStalled = () => {
    const now = clock.now();
    if (now - state.stallWarnedAt < WARN_EVERY_MS) return;
    state.stallWarnedAt = now;
    log.warn(`request count took over ${STALL_MS} ms; requests are counted by this process alone until it lands`);
  };

  /**
   * Starts the lease's one block: the counts owed, then a share of what is left for the requests to
   * come. It pays the owed counts when it lands, even late (the lease keeps its window, so the
   * counts are this window's), and starts another block at once if they were more than it took.
   */
  const takeBlock = (bucket: string, lease: Lease, max: number): Block => {
    const owed = lease.owed;
    const seen = lease.last + owed;
    const spare = seen >= max ? 0 : Math.max(1, Math.min(MAX_BLOCK, Math.floor((max - seen) / SPREAD)));
    const hits = owed + spare;
    let markStalled = () => {};
    const stalled = new Promise<void>((resolve) => (markStalled = resolve));
    // Declared stalled from the check phase, after the poll phase: a count whose answer came while
    // the event loop was busy (a loaded machine, not a stalled store) lands first.
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (lease.pending !== block) return;
        block.isStalled = true;
        markStalled();
        warnStalled();
      });
    }, STALL_MS);
    const land = async (): Promise<Error | null> => {
      let last: number;
      try {
        last = await countHits(db, bucket, lease.windowStart, hits);
      } catch (error) {
        // The owed counts stay owed: the next block asks for them again.
        return error instanceof Error ? error : new Error(String(error));
      } finally {
        clearTimeout(timer);
        lease.pending = null;
      }
      // This block's counts are last - hits + 1 to last: the first `owed` pay for the requests let
      // through before it started, the spare ones for those let through since, then requests to come.
      lease.owed -= owed;
      const paid = Math.min(lease.owed, spare);
      lease.owed -= paid;
      lease.next = last - hits + 1 + owed + paid;
      lease.last = last;
      if (lease.owed > 0 && leases.get(bucket) === lease) {
        // Pays the rest now, so that other processes see those requests too.
        const rest = takeBlock(bucket, lease, max);
        lease.pending = rest;
        void rest.settled.then((error) => error && warn(error));
      }
      prune(clock.now());
      return null;
    };
    const block: Block = { settled: land(), stalled, isStalled: false };
    return block;
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
        lease = { windowStart, next: 1, last: 0, owed: 0, pending: null };
        leases.set(bucket, lease);
      }
      const ttl = lease.windowStart + windowMs - now;
      // Within a window the count only grows: once past the limit, refused without asking the store.
      if (lease.next <= lease.last || lease.last >= max) return { current: lease.next++, ttl };
      // The requests this process let through since it last saw the count reach the limit by themselves.
      if (lease.last + lease.owed >= max) return { current: lease.last + lease.owed + 1, ttl };
      const block = (lease.pending ??= takeBlock(bucket, lease, max));
      if (!block.isStalled) {
        const error = await Promise.race([block.settled, block.stalled]);
        if (error) throw error;
        continue;
      }
      // The store is stalled: the request goes on, at the next place after the count this process
      // last saw and the requests it let through since, and the block pays for it when it lands.
      lease.owed += 1;
      return { current: lease.last + lease.owed, ttl };
    }
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
