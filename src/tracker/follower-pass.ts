// One follower pass of one account (DESIGN §11), a page at a time: each page is reserved from the
// platform's budgets (X bills every user a page returns), sent through the rate gate of the
// follower endpoint, and written with its cursor in one transaction (storage/follower-passes-repo),
// so a crash resumes at the next page. The last page closes the pass: the diff and its event are
// one transaction. A pass that cannot go on keeps its place and is due again later:
//   budget spent    → the start of the budget's next period ("the rest due later");
//   rate limited    → when the window reopens;
//   platform error  → RETRY_MS later (resumes at the same page);
//   account refused → given up; the next pass, an interval later, starts afresh.
import type { Logger } from 'pino';
import type { SleepingClock } from '../clock.ts';
import { followersChangedEvent, FOLLOWER_EVENT_GAP_MS } from '../domain/followers.ts';
import { monthBounds } from '../domain/spend.ts';
import { PlatformError } from '../platforms/types.ts';
import { recordEvents } from '../storage/events-repo.ts';
import { releasePass, renewPassLease, type FollowerTarget } from '../storage/follower-claims-repo.ts';
import {
  abandonPass,
  closePass,
  lastFollowerEventAt,
  noteFollowerEvent,
  openPass,
  recordFollowerPage,
  type OpenPass,
} from '../storage/follower-passes-repo.ts';
import type { Store } from '../storage/store.ts';
import { GatePacer } from './gate-pacer.ts';
import type { Lane } from './lane.ts';

/** A failed page is asked again this much later. */
export const RETRY_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

export interface FollowerPassContext {
  store: Store;
  lane: Lane;
  clock: SleepingClock;
  logger: Logger;
  signal: AbortSignal;
  /** The lease owner of this claim. */
  owner: string;
  intervalMs: number;
  leaseMs: number;
}

export type PassOutcome =
  'finished' | 'budget' | 'rate_limited' | 'failed' | 'refused' | 'waiting' | 'stopped' | 'lost';

/** Runs (or resumes) the account's pass until it finishes or must wait; never rejects on a platform's error. */
export async function runFollowerPass(ctx: FollowerPassContext, target: FollowerTarget): Promise<PassOutcome> {
  const { store, clock, lane, signal } = ctx;
  const release = (nextAt: number, error: string | null) =>
    releasePass(store.db, target.accountId, ctx.owner, nextAt, error);
  // A pass that has not finished in three intervals is out of date: it starts again.
  const pass = await openPass(store.db, target.accountId, clock.now(), 3 * ctx.intervalMs);
  // A loop in the platform's cursors must not run for ever: far more pages than the limit needs.
  for (let pages = 0; pages < 10_000; pages += 1) {
    if (signal.aborted) return release(clock.now(), null).then(() => 'stopped' as const);
    if (pass.pages > 0 && pass.cursor === null) return close(ctx, target, pass);
    const reservation = await lane.spend.reserve('users', lane.client.followerPageSize, { whole: true });
    if (reservation.granted === 0) {
      await release(nextPeriod(clock.now(), reservation.limitedBy), `${reservation.limitedBy ?? 'budget'} spent`);
      return 'budget';
    }
    const pacer = new GatePacer(lane.gates.followers, null, signal);
    let billed = 0;
    try {
      const askedAt = clock.now();
      const page = await lane.client.fetchFollowers(target.platformUserId, pass.cursor, { signal, pacer });
      billed = page.reads;
      const kept = await store.db.transaction().execute(async (trx) => {
        if (!(await renewPassLease(trx, target.accountId, ctx.owner, clock.now() + ctx.leaseMs))) return false;
        return recordFollowerPage(trx, store.caps, pass, page.value.followers, page.value.cursor, askedAt);
      });
      if (!kept) return 'lost';
      pass.cursor = page.value.cursor;
      pass.pages += 1;
    } catch (error) {
      if (error instanceof PlatformError) {
        billed = error.reads ?? 0;
        return await stopOn(ctx, target, error);
      }
      throw error;
    } finally {
      await pacer.finish();
      await lane.spend.settle(reservation, billed);
    }
  }
  await abandonPass(store.db, target.accountId);
  await release(clock.now() + ctx.intervalMs, 'the platform kept giving more pages');
  return 'refused';
}

async function stopOn(ctx: FollowerPassContext, target: FollowerTarget, error: PlatformError): Promise<PassOutcome> {
  const { store, clock, logger } = ctx;
  const now = clock.now();
  const release = (nextAt: number) => releasePass(store.db, target.accountId, ctx.owner, nextAt, error.message);
  if (error.kind === 'rate_limited') {
    await release(Math.max(error.retryAt ?? 0, now + 1_000));
    return 'rate_limited';
  }
  if (error.kind === 'invalid_request' || error.kind === 'unauthorized') {
    logger.warn({ err: error, account: target.publicId }, 'follower pass refused; trying again at the next interval');
    await abandonPass(store.db, target.accountId);
    await release(now + ctx.intervalMs);
    return 'refused';
  }
  logger.warn({ err: error, account: target.publicId }, 'follower page failed; the pass resumes later');
  await release(now + RETRY_MS);
  return 'failed';
}

/** Closes the pass with its event, at most one event per account per FOLLOWER_EVENT_GAP_MS. */
async function close(ctx: FollowerPassContext, target: FollowerTarget, pass: OpenPass): Promise<PassOutcome> {
  const { store, clock } = ctx;
  const now = clock.now();
  const last = await lastFollowerEventAt(store.db, target.accountId);
  if (last !== null && now - last < FOLLOWER_EVENT_GAP_MS) {
    await releasePass(store.db, target.accountId, ctx.owner, last + FOLLOWER_EVENT_GAP_MS, null);
    return 'waiting';
  }
  const account = {
    id: target.publicId,
    platform: target.platform,
    username: target.username,
    platformUserId: target.platformUserId,
  };
  await store.db.transaction().execute(async (trx) => {
    const diff = await closePass(trx, pass, now, now + ctx.intervalMs);
    await releasePass(trx, target.accountId, ctx.owner, now + ctx.intervalMs, null);
    const event = followersChangedEvent(target.accountId, account, diff, 'poll');
    if (event) {
      await noteFollowerEvent(trx, target.accountId, now);
      // Last in the transaction, as recordEvents asks.
      await recordEvents(trx, store.caps, [event], now);
    }
  });
  return 'finished';
}

/** When a spent budget has room again: its next UTC day, or month for a monthly one. */
function nextPeriod(now: number, limitedBy: string | null): number {
  if (limitedBy?.includes('monthly')) return monthBounds(now).end;
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}
