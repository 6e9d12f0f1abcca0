// One rate-limited endpoint group of one platform credential, as every tracker sees it: the window
// lives in the store (rate-windows-repo), so all tracker processes draw on the same requests.
//
// States of a window (one row in `rate_windows`, shared by every process):
//   UNKNOWN   no headers seen yet, or the reset passed (plus RESET_MARGIN_MS): one request may go
//             as the probe that learns the window.
//   PROBING   the probe is out; others wait for it to settle (a probe unsettled after
//             PROBE_LEASE_MS belongs to a tracker that died, and another may go).
//   OPEN      headers known and requests left: each request takes a token (a conditional update,
//             so processes together never take more than the platform left); with plenty left, a
//             process takes a block of them at once and holds the rest briefly (token-pool.ts).
//   SPENT     no requests left: waiting for the reset.
//   BLOCKED   a 429 said to wait: nothing goes until its retry time (bounded by MAX_WAIT_MS).
// A request's answer settles its ticket: its headers lower the window (never raise it within one,
// so an answer leaving no less than the store held at our last look writes nothing), a 429 blocks
// it; a request never sent gives its token back (cancel). Waiters in this process wake when a
// request of this process settles; another process's probe is looked at every PROBE_POLL_MS.
// Store errors fail towards sending less: a settle the store did not take leaves the token spent.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { recordWindow, returnToken, takeBlock, takeRequest, type WindowRow } from '../storage/rate-windows-repo.ts';
import type { SleepingClock } from '../clock.ts';
import { changeSignal, untilSettled } from './settle-signal.ts';
import { blockSize, TokenPool } from './token-pool.ts';
import { boundedAnswer, MAX_WAIT_MS, sameWindow, type WindowHeaders } from './window-answer.ts';
export { MAX_WAIT_MS } from './window-answer.ts';

/** Waiting a little past the platform's reset absorbs clock skew between us and the platform. */
export const RESET_MARGIN_MS = 500;
/** A probe unsettled after this long (a request times out in 10 s) belongs to a tracker that died: another may go. */
export const PROBE_LEASE_MS = 15_000;
/** How often a waiter looks again while another process's probe is out. */
const PROBE_POLL_MS = 200;

export interface GateSnapshot {
  limit: number | null;
  remaining: number | null;
  resetAt: string | null;
  blockedUntil: string | null;
  inFlight: number;
}

/**
 * A request taken from the window; hand it back to settle() or cancel(). Only the first of those
 * counts (`done`), so a holder may cancel in a `finally` whatever the request path settled.
 */
export type Ticket = ({ kind: 'token'; resetAt: number } | { kind: 'probe' }) & { done?: boolean };

export class RateGate {
  /** Total time spent waiting for the window to reopen, in ms (for metrics). */
  waitedMs = 0;
  private inFlight = 0;
  /** Requests of this process settled so far. */
  private settled = 0;
  private probesInFlight = 0;
  private lastSeen: WindowRow | null = null;
  /** What the window had left in the store when this process last took from it or wrote it. */
  private storeRemaining: number | null = null;
  /** Tokens taken ahead in a block, not yet sent. */
  private readonly pool = new TokenPool();
  private takes: Promise<void> = Promise.resolve();
  private changed: { promise: Promise<void>; resolve: () => void } = changeSignal();

  constructor(
    private readonly db: Kysely<Database>,
    /** Names the window in the store: platform, endpoint group and credential. */
    readonly key: string,
    private readonly clock: SleepingClock,
    private readonly onStoreError: (error: unknown) => void = () => {},
  ) {}

  /**
   * Takes a request if one may go now, else null. Takes of one process go one at a time, so that
   * when a take finds a probe out, `probesInFlight` says for certain whether it is ours.
   */
  tryAcquire(): Promise<Ticket | null> {
    const take = this.takes.then(() => this.take());
    this.takes = take.then(
      () => {},
      () => {},
    );
    return take;
  }

  private async take(): Promise<Ticket | null> {
    const now = this.clock.now();
    if ((this.lastSeen?.blockedUntil ?? 0) <= now && this.pool.draw(now)) return this.token(this.pool.resetAt);
    // Held too long, or of a window past: back to the store before taking anew.
    if (this.pool.count > 0) await this.giveBack();
    const size = blockSize(this.storeRemaining);
    const block = size > 1 ? await takeBlock(this.db, this.key, now, size) : null;
    if (block) {
      this.noteTaken(block.remaining, block.resetAt);
      this.pool.fill(block.resetAt, size - 1, now);
      return this.token(block.resetAt);
    }
    const take = await takeRequest(this.db, this.key, now, RESET_MARGIN_MS, PROBE_LEASE_MS);
    if (take.kind === 'none') {
      [this.lastSeen, this.storeRemaining] = [take.row, take.row.remaining];
      return null;
    }
    if (take.kind === 'token') {
      this.noteTaken(take.remaining, take.resetAt);
      return this.token(take.resetAt);
    }
    this.inFlight += 1;
    this.probesInFlight += 1;
    return take;
  }

  /** A take's answer is the window as the store has it now (health shows it; settles compare with it). */
  private noteTaken(remaining: number, resetAt: number): void {
    this.storeRemaining = remaining;
    if (this.lastSeen) this.lastSeen = { ...this.lastSeen, remaining, resetAt };
  }

  private token(resetAt: number): Ticket {
    this.inFlight += 1;
    return { kind: 'token', resetAt };
  }

  /** Gives the held tokens back to the store; never throws (tokens it does not take back stay spent). */
  private async giveBack(): Promise<void> {
    const held = this.pool.empty();
    if (held.count <= 0) return;
    try {
      await returnToken(this.db, this.key, held.resetAt, held.count);
      this.storeRemaining = null;
    } catch (error) {
      this.onStoreError(error);
    }
  }

  /** Resolves once this gate's takes and give-backs so far are done (before the store closes). */
  drain = (): Promise<void> => this.takes;

  /**
   * Waits until a request may go, then takes it. Returns null if `signal` aborted first, or, with
   * `windowWait: false`, as soon as going would mean waiting for the window to reopen (it still
   * waits for a probe in flight, which settles within a request timeout).
   */
  async acquire(signal?: AbortSignal, options: { windowWait?: boolean } = {}): Promise<Ticket | null> {
    for (;;) {
      if (signal?.aborted) return null;
      const changed = this.changed.promise;
      const settled = this.settled;
      const ticket = await this.tryAcquire();
      if (ticket) return ticket;
      // A request of ours settled meanwhile: what we read may be out of date already.
      if (this.settled !== settled) continue;
      const now = this.clock.now();
      const row = this.lastSeen as WindowRow;
      const windowWait = Math.max(
        row.blockedUntil - now,
        row.remaining !== null && row.remaining <= 0 ? row.resetAt + RESET_MARGIN_MS - now : 0,
      );
      if (windowWait > 0 && this.inFlight > 0) {
        // Requests of ours are out: their answers may change the window; look again then.
        await untilSettled(changed, signal);
      } else if (windowWait > 0) {
        if (options.windowWait === false) return null;
        const wait = Math.min(windowWait, MAX_WAIT_MS);
        this.waitedMs += wait;
        await this.clock.sleep(wait, signal);
      } else if (this.probesInFlight > 0) {
        // Our own probe is out: its settle wakes us.
        await untilSettled(changed, signal);
      } else {
        await Promise.race([
          changed,
          this.clock.sleep(Math.min(PROBE_POLL_MS, Math.max(1, row.probeUntil - now)), signal),
        ]);
      }
    }
  }

  /**
   * Ends a request with what its response said about the window (null if nothing), and a 429's
   * retry time. Never throws: if the store cannot take the news, the window keeps what it had
   * (the token stays spent; a probe's lease runs out), which errs on the side of sending less.
   */
  async settle(ticket: Ticket, info: WindowHeaders | null, retryAt: number | null = null): Promise<void> {
    if (ticket.done) return;
    ticket.done = true;
    const { report, blockedUntil } = boundedAnswer(info, retryAt, this.clock.now());
    if (blockedUntil !== null) this.pool.empty(); // a 429: nothing held back may go
    if (report && !sameWindow(report.resetAt, this.pool.resetAt)) this.pool.empty();
    // The platform does not know of the tokens held here yet: what it says is left is theirs too.
    if (report) report.remaining = Math.max(0, report.remaining - this.pool.count);
    // Within one window the count only goes down: an answer leaving at least what the store held changes nothing.
    const unchanged =
      ticket.kind === 'token' &&
      blockedUntil === null &&
      report !== null &&
      sameWindow(report.resetAt, ticket.resetAt) &&
      this.storeRemaining !== null &&
      report.remaining >= this.storeRemaining;
    if (unchanged) return this.release(ticket);
    try {
      this.lastSeen =
        (await recordWindow(this.db, this.key, this.clock.now(), report, blockedUntil, ticket.kind === 'probe')) ??
        this.lastSeen;
      this.storeRemaining = this.lastSeen?.remaining ?? null;
    } catch (error) {
      this.onStoreError(error);
    } finally {
      this.release(ticket);
    }
  }

  /** Gives back a request that was never sent (nothing, if it was settled). Never throws (a token the store did not take back stays spent). */
  async cancel(ticket: Ticket): Promise<void> {
    if (ticket.done) return;
    ticket.done = true;
    try {
      if (ticket.kind === 'token' && this.pool.putBack(ticket.resetAt, this.clock.now())) return;
      if (ticket.kind === 'token') await returnToken(this.db, this.key, ticket.resetAt);
      else this.lastSeen = (await recordWindow(this.db, this.key, this.clock.now(), null, null, true)) ?? this.lastSeen;
    } catch (error) {
      this.onStoreError(error);
    } finally {
      this.release(ticket);
    }
  }

  private release(ticket: Ticket): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (ticket.kind === 'probe') this.probesInFlight = Math.max(0, this.probesInFlight - 1);
    this.settled += 1;
    // Nothing of ours out: what is held goes back for other processes (after the takes queued before it).
    if (this.inFlight === 0 && this.pool.count > 0)
      this.takes = this.takes.then(() => (this.inFlight === 0 ? this.giveBack() : undefined));
    const changed = this.changed;
    this.changed = changeSignal();
    changed.resolve();
  }

  /** The window as this process last saw it in the store. */
  snapshot(): GateSnapshot {
    const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : null);
    const row = this.lastSeen;
    return {
      limit: row?.limit ?? null,
      remaining: row?.remaining ?? null,
      resetAt: iso(row?.resetAt ?? 0),
      blockedUntil: iso(row?.blockedUntil ?? 0),
      inFlight: this.inFlight,
    };
  }
}
