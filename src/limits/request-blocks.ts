// The per-key request counter's state: for each bucket (a key, or a client before authentication)
// the counts this process holds of the bucket's shared window in the store.
//
// A process takes counts from the store in blocks and hands them to requests one by one: a busy key
// costs one write per block, not one per request (on SQLite a write per request cut the throughput
// of cheap reads by two thirds). A block is a range of the shared count that no other process
// holds, so together they never let more than the limit through.
//
// States of one bucket's lease in one window:
//   EMPTY     no counts in hand (`next > last`): the next request starts a block and waits for it.
//   WAITING   a block is being taken; requests wait for it, up to STALL_MS.
//   HOLDING   counts `next`..`last` in hand: requests take them without the store.
//   STALLED   the block took over STALL_MS (an import holding SQLite's writer, a PostgreSQL pool or
//             row lock held by a long transaction): requests go on, counted by this process alone
//             from the count it last saw (`owed`); the block pays for them when it lands.
//   OVER      the count this process saw (plus what it let through alone) reached the limit:
//             refused without asking the store until the window ends.
// A new window starts EMPTY; leases of ended windows are pruned. A failed block leaves its owed
// counts owed, and the request fails open (the plugin lets it through).
import type { Kysely } from 'kysely';
import { countHits, pruneRateCounters, windowStartOf } from '../storage/api-limits-repo.ts';
import type { Database } from '../storage/schema.ts';
import { oncePer, throttledWarning, type WarnLog } from './pacing.ts';

/** A block is at most 1/SPREAD of what the process last saw left (so near the limit, single counts). */
const SPREAD = 16;
const MAX_BLOCK = 100;
/**
 * How long requests wait for a block before the store counts as STALLED. Well above a healthy
 * write, even on a loaded machine: a block that comes back in time is exact across processes.
 */
export const STALL_MS = 500;
const PRUNE_EVERY_MS = 60_000;
const MAX_LEASES = 10_000;

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
  /** Requests let through while STALLED and not yet paid for: the next block takes their counts first. */
  owed: number;
  pending: Block | null;
}

/** The request's place in its window (over the limit: refused) and the ms until the window ends. */
export interface Place {
  current: number;
  ttl: number;
}

/** How many spare counts a block asks for, when the process last saw `seen` of `max` used. */
export function blockSize(seen: number, max: number): number {
  return seen >= max ? 0 : Math.max(1, Math.min(MAX_BLOCK, Math.floor((max - seen) / SPREAD)));
}

export interface RequestBlocksDeps {
  db: Kysely<Database>;
  now: () => number;
  log: WarnLog;
}

export class RequestBlocks {
  private readonly leases = new Map<string, Lease>();
  private longestWindowMs = 0;
  private readonly pruneDue = oncePer(PRUNE_EVERY_MS);
  readonly warnUnavailable: (error?: unknown) => void;
  private readonly warnStalled: () => void;

  constructor(private readonly deps: RequestBlocksDeps) {
    this.warnUnavailable = throttledWarning(
      deps.log,
      'request counter unavailable; requests are let through uncounted',
      deps.now,
    );
    this.warnStalled = throttledWarning(
      deps.log,
      `request count took over ${STALL_MS} ms; requests are counted by this process alone until it lands`,
      deps.now,
    );
  }

  /**
   * The request's place without waiting, when this process holds counts of the bucket's current
   * window (HOLDING) or has seen it OVER; null when the store must be asked (take()).
   */
  tryTake(bucket: string, windowMs: number, max: number): Place | null {
    const now = this.deps.now();
    const lease = this.leases.get(bucket);
    if (lease === undefined || lease.windowStart < windowStartOf(now, windowMs)) return null;
    if (lease.next > lease.last && lease.last < max) return null;
    return { current: lease.next++, ttl: lease.windowStart + windowMs - now };
  }

  /** Places one request of `bucket` in its window of `windowMs` with limit `max`. Rejects when the store fails. */
  async take(bucket: string, windowMs: number, max: number): Promise<Place> {
    this.longestWindowMs = Math.max(this.longestWindowMs, windowMs);
    for (;;) {
      const now = this.deps.now();
      const lease = this.leaseOf(bucket, windowStartOf(now, windowMs));
      const ttl = lease.windowStart + windowMs - now;
      // HOLDING, or OVER: within a window the count only grows.
      if (lease.next <= lease.last || lease.last >= max) return { current: lease.next++, ttl };
      // OVER through the requests this process let through alone since it last saw the count.
      if (lease.last + lease.owed >= max) return { current: lease.last + lease.owed + 1, ttl };
      const block = (lease.pending ??= this.takeBlock(bucket, lease, max));
      if (!block.isStalled) {
        // WAITING.
        const error = await Promise.race([block.settled, block.stalled]);
        if (error) throw error;
        continue;
      }
      // STALLED: the request goes on, at the next place after the count last seen and the requests
      // let through since, and the block pays for it when it lands.
      lease.owed += 1;
      return { current: lease.last + lease.owed, ttl };
    }
  }

  private leaseOf(bucket: string, windowStart: number): Lease {
    let lease = this.leases.get(bucket);
    if (lease === undefined || lease.windowStart < windowStart) {
      if (this.leases.size >= MAX_LEASES) this.leases.clear();
      lease = { windowStart, next: 1, last: 0, owed: 0, pending: null };
      this.leases.set(bucket, lease);
    }
    return lease;
  }

  /**
   * Starts the lease's one block: the counts owed, then a share of what is left for the requests to
   * come. It pays the owed counts when it lands, even late (the lease keeps its window, so the
   * counts are this window's), and starts another block at once if they were more than it took.
   */
  private takeBlock(bucket: string, lease: Lease, max: number): Block {
    const owed = lease.owed;
    const spare = blockSize(lease.last + owed, max);
    const hits = owed + spare;
    let markStalled = () => {};
    const stalled = new Promise<void>((resolve) => (markStalled = resolve));
    // Declared STALLED from the check phase, after the poll phase: a count whose answer came while
    // the event loop was busy (a loaded machine, not a stalled store) lands first.
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (lease.pending !== block) return;
        block.isStalled = true;
        markStalled();
        this.warnStalled();
      });
    }, STALL_MS);
    const land = async (): Promise<Error | null> => {
      let last: number;
      try {
        last = await countHits(this.deps.db, bucket, lease.windowStart, hits);
      } catch (error) {
        // The owed counts stay owed: the next block asks for them again.
        return error instanceof Error ? error : new Error(String(error));
      } finally {
        clearTimeout(timer);
        lease.pending = null;
      }
      this.landed(bucket, lease, max, { owed, spare, hits, last });
      return null;
    };
    const block: Block = { settled: land(), stalled, isStalled: false };
    return block;
  }

  /**
   * A block's counts are `last - hits + 1` to `last`: the first `owed` pay for the requests let
   * through before it started, the spare ones for those let through since, then requests to come.
   */
  private landed(
    bucket: string,
    lease: Lease,
    max: number,
    block: { owed: number; spare: number; hits: number; last: number },
  ): void {
    lease.owed -= block.owed;
    const paid = Math.min(lease.owed, block.spare);
    lease.owed -= paid;
    lease.next = block.last - block.hits + 1 + block.owed + paid;
    lease.last = block.last;
    if (lease.owed > 0 && this.leases.get(bucket) === lease) {
      // Pays the rest now, so that other processes see those requests too.
      const rest = this.takeBlock(bucket, lease, max);
      lease.pending = rest;
      void rest.settled.then((error) => error && this.warnUnavailable(error));
    }
    this.prune(this.deps.now());
  }

  private prune(now: number): void {
    if (!this.pruneDue(now)) return;
    for (const [bucket, lease] of this.leases)
      if (lease.windowStart + this.longestWindowMs <= now) this.leases.delete(bucket);
    // Ended windows only (none is longer than the longest counted so far), with one window of
    // slack for processes whose clocks disagree a little. The delete scans the table, which this
    // keeps to a few windows' rows.
    pruneRateCounters(this.deps.db, now - 2 * this.longestWindowMs).catch((error: unknown) =>
      this.deps.log.warn({ err: error }, 'could not prune request counters'),
    );
  }
}
