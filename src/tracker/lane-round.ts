// The tracker's policy for one round of a lane: workers take batches until nothing is due. For each
// batch: reserve its reads from the budget, take its lookup request from the rate gate (before
// claiming, so a lease is never held through a wait), claim the due accounts, check them. The
// reservation and the gate ticket are taken and given back here, whatever happens in between.
import type { Ticket } from '../limits/rate-gate.ts';
import type { Reservation } from '../limits/read-budget.ts';
import { claimDueAccounts, deferAccounts, hasDueUnresolved, releaseLeases } from '../storage/leases-repo.ts';
import type { BatchReport } from './check-batch.ts';
import { checkBatch } from './check-batch.ts';
import type { TrackerContext } from './context.ts';
import { pauseLane, type Lane } from './lane.ts';

/** After the platform refuses our credentials, or the day's read budget is spent, look again this much later. */
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
  // Names never resolved go first: they are new, and a user is waiting to see them.
  const resolved = !(await hasDueUnresolved(store.reader, lane.client.platform, clock.now()));
  // The reads a batch may cost are reserved before claiming, in the store, so trackers in
  // parallel (here or in other processes) cannot together overspend the day's budget.
  const reservation: Reservation | null = lane.budget ? await lane.budget.reserve(lane.client.batchSize) : null;
  if (reservation?.granted === 0) {
    pauseLane(lane, clock.now() + PAUSE_MS, 'daily read budget spent', logger);
    return false;
  }
  let reads = 0;
  try {
    const limit = Math.min(lane.client.batchSize, reservation?.granted ?? lane.client.batchSize);
    const result = await withLookupTicket(lane, deps, resolved, (ticket) =>
      claimAndCheckOnTicket(lane, deps, ticket, resolved, limit),
    );
    if (result === 'no_ticket') return false;
    if (result === 'nothing_due') return !resolved; // another worker took the last unresolved names: look again for resolved ones
    reads = result.reads;
    report.checked += result.checked;
    report.released += result.released;
    report.leaseLost += result.leaseLost;
    if (result.unauthorized) pauseLane(lane, clock.now() + PAUSE_MS, 'the platform refused our credentials', logger);
    return true;
  } finally {
    if (reservation)
      await lane.budget
        ?.settle(reservation, reads)
        .catch((error: unknown) => logger.warn({ err: error }, 'could not settle the read budget'));
  }
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
  resolved: boolean,
  limit: number,
): Promise<TicketUse> {
  const { clock, store, settings, logger, signal } = deps.shared;
  const owner = deps.nextOwner();
  const accounts = await claimDueAccounts(store.db, store.caps, {
    platform: lane.client.platform,
    owner,
    now: clock.now(),
    leaseMs: settings.leaseMs,
    limit,
    resolved,
  });
  if (accounts.length === 0) return 'nothing_due';
  const ids = accounts.map((a) => a.id);
  try {
    const result = await checkBatch({ ...deps.shared, lane, owner }, accounts, resolved, ticket);
    deps.onBatch(result);
    return result;
  } catch (error) {
    if (signal.aborted)
      return { checked: 0, released: await releaseLeases(store.db, owner, ids).catch(() => 0), leaseLost: 0, reads: 0 };
    // Whatever broke (the store refused the batch, a bug), do not claim the same batch again at once.
    logger.error({ err: error, platform: lane.client.platform }, 'batch failed; its accounts are retried in a minute');
    return {
      checked: 0,
      released: await deferAccounts(store.db, owner, ids, clock.now() + BATCH_FAILURE_DELAY_MS).catch(() => 0),
      leaseLost: 0,
      reads: 0,
    };
  }
}
