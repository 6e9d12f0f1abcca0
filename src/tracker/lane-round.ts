// The tracker's policy for one round of a lane: workers take batches until nothing is due. For each
// batch: take its lookup request from the rate gate (before claiming, so a lease is never held
// through a wait), claim the due accounts, reserve from the budgets the users among them not billed
// yet today, check them. The gate ticket and the reservation are taken and given back here,
// whatever happens in between.
//
// What is claimed, when budgets are tight: names never resolved first (a user is waiting for them),
// then the stalest due accounts; a batch the budget only partly covers is claimed smaller. With a
// budget spent, only re-checks of users already billed this UTC day go on (X does not bill them
// again); the rest waits for the budget's next day or month.
import type { Ticket } from '../limits/rate-gate.ts';
import type { SpendReservation } from '../limits/spend-budget.ts';
import { utcDay } from '../domain/spend.ts';
import { claimDueAccounts, deferAccounts, hasDueUnresolved, releaseLeases } from '../storage/leases-repo.ts';
import type { BatchReport } from './check-batch.ts';
import { checkBatch } from './check-batch.ts';
import type { TrackerContext } from './context.ts';
import { pauseLane, type Lane } from './lane.ts';

/** After the platform refuses our credentials, or a budget is spent, look again this much later. */
export const PAUSE_MS = 60_000;
/** A batch that failed for a reason of ours (the store refused it) is retried this much later, not at once. */
const BATCH_FAILURE_DELAY_MS = 60_000;

export interface RoundReport {
  checked: number;
  released: number;
  leaseLost: number;
}

export interface RoundDeps {
  /** What every batch's context shares; each batch adds its lane and its claim's owner. */
  shared: Omit<TrackerContext, 'lane' | 'owner'>;
  /** A lease owner for a new claim (the tracker's id and a claim number). */
  nextOwner(): string;
  stopping(): boolean;
  /** Counts a batch done (for the heartbeat). */
  onBatch(report: BatchReport): void;
}

/** One round of a lane: its workers claim and check until nothing is due. Never rejects. */
export async function runRound(lane: Lane, deps: RoundDeps, report: RoundReport): Promise<void> {
  const { clock, settings, logger, signal } = deps.shared;
  const worker = async () => {
    try {
      while (!deps.stopping() && lane.pausedUntil <= clock.now() && (await claimAndCheck(lane, deps, report)));
    } catch (error) {
      if (!signal.aborted) logger.error({ err: error, platform: lane.client.platform }, 'tracker worker failed');
    }
  };
  await Promise.all(Array.from({ length: settings.batchesInFlight }, worker));
}

/** One batch. Returns false when nothing more is due (or the lane paused). */
async function claimAndCheck(lane: Lane, deps: RoundDeps, report: RoundReport): Promise<boolean> {
  const { clock, store, logger } = deps.shared;
  // A budget said no a moment ago: only re-checks of users billed today (free) are claimed.
  const freeOnly = lane.spentUntil > clock.now();
  // Names never resolved go first: they are new, and a user is waiting to see them. They are never free.
  const resolved = freeOnly || !(await hasDueUnresolved(store.reader, lane.client.platform, clock.now()));
  const billedOn = freeOnly ? utcDay(clock.now()) : undefined;
  const result = await withLookupTicket(lane, deps, resolved, (ticket) =>
    claimAndCheckOnTicket(lane, deps, ticket, { resolved, billedOn }),
  );
  if (result === 'no_ticket') return false;
  if (result === 'nothing_due') {
    if (freeOnly) pauseLane(lane, lane.spentUntil, lane.spentReason ?? 'budget spent', logger);
    return !resolved; // another worker took the last unresolved names: look again for resolved ones
  }
  report.checked += result.checked;
  report.released += result.released;
  report.leaseLost += result.leaseLost;
  if (result.unauthorized) pauseLane(lane, clock.now() + PAUSE_MS, 'the platform refused our credentials', logger);
  return true;
}

type TicketUse = BatchReport | 'nothing_due' | 'no_ticket';

/**
 * Takes the lookup request from the gate, runs `use` with it, and gives it back unused unless the
 * lookup's pacer (gate-pacer.ts) settled it: the one place a batch's ticket is taken and released.
 */
async function withLookupTicket(
  lane: Lane,
  deps: RoundDeps,
  resolved: boolean,
  use: (ticket: Ticket) => Promise<TicketUse>,
): Promise<TicketUse> {
  const { signal, metrics } = deps.shared;
  const gate = lane.gates[resolved ? 'lookup_by_id' : 'lookup_by_name'];
  const waitedBefore = gate.waitedMs;
  const ticket = await gate.acquire(signal);
  if (ticket === null) return 'no_ticket';
  metrics.rateLimitWait(lane.client.platform, gate.waitedMs - waitedBefore);
  try {
    if (deps.stopping()) return 'no_ticket';
    return await use(ticket);
  } finally {
    await gate.cancel(ticket);
  }
}

async function claimAndCheckOnTicket(
  lane: Lane,
  deps: RoundDeps,
  ticket: Ticket,
  claim: { resolved: boolean; billedOn: string | undefined },
): Promise<TicketUse> {
  const { clock, store, settings, logger, signal } = deps.shared;
  const owner = deps.nextOwner();
  const claimed = await claimDueAccounts(store.db, store.caps, {
    platform: lane.client.platform,
    owner,
    now: clock.now(),
    leaseMs: settings.leaseMs,
    limit: lane.client.batchSize,
    ...claim,
  });
  if (claimed.length === 0) return 'nothing_due';
  let accounts = claimed;
  let reservation: SpendReservation | null = null;
  let billed = 0;
  try {
    // The users this batch may be billed for are reserved once the batch is known: those not billed
    // yet today. What the budgets cannot cover is given back at once, still due, for later.
    const today = utcDay(clock.now());
    const unbilled = claimed.filter((a) => a.billedOn !== today);
    reservation = await lane.spend.reserve('users', unbilled.length);
    let released = 0;
    if (reservation.granted < unbilled.length) {
      const over = new Set(unbilled.slice(reservation.granted).map((a) => a.id));
      released = await releaseLeases(store.db, owner, [...over]);
      accounts = claimed.filter((a) => !over.has(a.id));
      lane.spentUntil = clock.now() + PAUSE_MS;
      lane.spentReason = `${reservation.limitedBy ?? 'budget'} spent`;
      if (accounts.length === 0) return { checked: 0, released, leaseLost: 0, billed: 0 };
    }
    const result = await checkBatch({ ...deps.shared, lane, owner }, accounts, claim.resolved, ticket);
    billed = result.billed;
    deps.onBatch(result);
    return { ...result, released: result.released + released };
  } catch (error) {
    const ids = accounts.map((a) => a.id);
    if (signal.aborted)
      return {
        checked: 0,
        released: await releaseLeases(store.db, owner, ids).catch(() => 0),
        leaseLost: 0,
        billed: 0,
      };
    // Whatever broke (the store refused the batch, a bug), do not claim the same batch again at once.
    logger.error({ err: error, platform: lane.client.platform }, 'batch failed; its accounts are retried in a minute');
    return {
      checked: 0,
      released: await deferAccounts(store.db, owner, ids, clock.now() + BATCH_FAILURE_DELAY_MS).catch(() => 0),
      leaseLost: 0,
      billed: 0,
    };
  } finally {
    if (reservation)
      await lane.spend
        .settle(reservation, billed)
        .catch((error: unknown) => logger.warn({ err: error }, 'could not settle the spend budget'));
  }
}
