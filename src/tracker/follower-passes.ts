// The background job of follower passes (DESIGN §11), on the shared polling loop: each round
// claims, per configured platform, the accounts whose pass is due (under a lease) and runs their
// passes a few at a time (follower-pass.ts), until nothing is due, and names a few followers that
// live follows added by DID (follower-names.ts); then it sleeps until the next pass is due, or a
// minute (accounts that became eligible since are found by that poll).
import type { Logger } from 'pino';
import type { SleepingClock } from '../clock.ts';
import { claimFollowerPasses, nextPassAt } from '../storage/follower-claims-repo.ts';
import type { FollowerPassSettings } from './context.ts';
import type { Store } from '../storage/store.ts';
import type { FollowerNamer } from './follower-names.ts';
import { runFollowerPass, type PassOutcome } from './follower-pass.ts';
import type { Lane } from './lane.ts';

/** Passes claimed at once per platform, and run side by side. */
const CLAIM_SIZE = 8;
const PASSES_IN_FLIGHT = 4;
/** An idle job looks for newly eligible accounts this often. */
export const FOLLOWER_POLL_MS = 60_000;

/** Passes by outcome, and `named`: followers gained live whose handle the round found. */
export type FollowerRoundReport = Partial<Record<PassOutcome | 'named', number>>;

export interface FollowerJobDeps {
  store: Store;
  lanes: readonly Lane[];
  clock: SleepingClock;
  logger: Logger;
  signal: AbortSignal;
  settings: FollowerPassSettings;
  /** Names the followers live follows added by DID alone. */
  namer: FollowerNamer;
  /** A lease owner for a new claim. */
  nextOwner(): string;
  stopping(): boolean;
}

/** One round over every configured platform; resolves when nothing more is due now. Never rejects on a pass's failure. */
export async function runFollowerRound(deps: FollowerJobDeps): Promise<FollowerRoundReport> {
  const report: FollowerRoundReport = {};
  const lanes = deps.lanes.filter((lane) => lane.client.configured);
  await Promise.all(lanes.map((lane) => runLane(deps, lane, report)));
  for (const lane of lanes) {
    if (deps.stopping() || lane.pausedUntil > deps.clock.now()) continue;
    const named = await deps.namer.round(deps, lane).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'naming live followers failed; tried again next round');
      return 0;
    });
    if (named > 0) report.named = (report.named ?? 0) + named;
  }
  return report;
}

async function runLane(deps: FollowerJobDeps, lane: Lane, report: FollowerRoundReport): Promise<void> {
  const { store, clock, logger, settings } = deps;
  for (;;) {
    if (deps.stopping() || lane.pausedUntil > clock.now()) return;
    const owner = deps.nextOwner();
    const claimed = await claimFollowerPasses(store.db, {
      platform: lane.client.platform,
      owner,
      now: clock.now(),
      leaseMs: settings.leaseMs,
      limit: CLAIM_SIZE,
      rule: settings.rule,
    });
    if (claimed.length === 0) return;
    const queue = [...claimed];
    let spent = false;
    const worker = async () => {
      for (let target = queue.shift(); target; target = queue.shift()) {
        const ctx = { ...deps, lane, owner, intervalMs: settings.intervalMs, leaseMs: settings.leaseMs };
        // After a spent budget, each remaining pass only asks the budget once and is put off.
        const outcome = await runFollowerPass(ctx, target).catch((error: unknown) => {
          logger.error({ err: error, account: target.publicId }, 'follower pass failed');
          return 'failed' as const;
        });
        if (outcome === 'budget') spent = true;
        report[outcome] = (report[outcome] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: PASSES_IN_FLIGHT }, worker));
    // A spent budget stops this platform's round: the rest is due later.
    if (spent || claimed.length < CLAIM_SIZE) return;
  }
}

/** How long the idle job sleeps: until the next pass is due, at most FOLLOWER_POLL_MS. */
export async function followerWaitMs(store: Store, clock: SleepingClock): Promise<number> {
  const next = await nextPassAt(store.reader, clock.now());
  return next === null ? FOLLOWER_POLL_MS : Math.max(0, Math.min(FOLLOWER_POLL_MS, next - clock.now()));
}
