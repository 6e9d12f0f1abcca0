// One platform's lane in a tracker: its client, its rate gates (one per rate-limit group of the
// credential), its read budget, and whether it is paused (credentials refused, budget spent).
import type { Logger } from 'pino';
import type { SleepingClock } from '../clock.ts';
import type { PlatformLaneStatus } from '../domain/tracker-status.ts';
import { RateGate } from '../limits/rate-gate.ts';
import { throttledWarning } from '../limits/pacing.ts';
import { SpendBudget } from '../limits/spend-budget.ts';
import type { Endpoint, PlatformClient } from '../platforms/types.ts';
import { FREE } from '../domain/spend.ts';
import type { Store } from '../storage/store.ts';
import type { PlatformLane } from './context.ts';
import { READ_METER_LABEL, type SpendPlan } from '../limits/spend-plan.ts';

export interface Lane extends PlatformLane {
  pausedUntil: number;
  pauseReason: string | null;
  /** Until then a budget is spent: only free re-checks are claimed, then the lane pauses. */
  spentUntil: number;
  spentReason: string | null;
}

/** One gate per rate-limit group of the platform's credential; endpoints of a group share it. */
function gatesFor(
  client: PlatformClient,
  store: Store,
  clock: SleepingClock,
  logger: Logger,
): Record<Endpoint, RateGate> {
  const byGroup = new Map<string, RateGate>();
  const gate = (endpoint: Endpoint) => {
    const group = client.rateLimitGroups[endpoint];
    const key = `${client.platform}:${group}:${client.rateLimitScope}`;
    if (!byGroup.has(group))
      byGroup.set(
        group,
        new RateGate(
          store.db,
          key,
          clock,
          throttledWarning(logger, `could not record the rate-limit window ${key}; it keeps what it had`, clock.now),
        ),
      );
    return byGroup.get(group) as RateGate;
  };
  return {
    lookup_by_name: gate('lookup_by_name'),
    lookup_by_id: gate('lookup_by_id'),
    posts: gate('posts'),
    post_lookup: gate('post_lookup'),
    followers: gate('followers'),
  };
}

/** `plan`: the platform's budget meters and rate card (none: unmetered and free). */
export function createLane(
  client: PlatformClient,
  store: Store,
  clock: SleepingClock,
  logger: Logger,
  plan: SpendPlan | undefined,
): Lane {
  return {
    client,
    gates: gatesFor(client, store, clock, logger),
    spend: new SpendBudget(store.db, client.platform, plan?.meters ?? [], plan?.card ?? FREE, clock),
    pausedUntil: 0,
    pauseReason: null,
    spentUntil: 0,
    spentReason: null,
  };
}

/** Waits for the lane's gates to give back what they hold (before a round reports done, or the store closes). */
export async function drainGates(lane: Lane): Promise<void> {
  await Promise.all(Object.values(lane.gates).map((gate) => gate.drain()));
}

export function pauseLane(lane: Lane, until: number, reason: string, logger: Logger): void {
  if (lane.pausedUntil < until)
    logger.warn({ platform: lane.client.platform, until: new Date(until).toISOString(), reason }, 'platform paused');
  lane.pausedUntil = until;
  lane.pauseReason = reason;
}

export function laneStatus(lane: Lane, now: number): PlatformLaneStatus {
  return {
    configured: lane.client.configured,
    pausedUntil: lane.pausedUntil <= now ? null : new Date(lane.pausedUntil).toISOString(),
    pauseReason: lane.pausedUntil > now ? lane.pauseReason : null,
    lookup: lane.gates.lookup_by_id.snapshot(),
    posts: lane.gates.posts.snapshot(),
    budget: readMeter(lane),
  };
}

/** The daily read budget as health has always shown it (null where the platform has none). */
function readMeter(lane: Lane): PlatformLaneStatus['budget'] {
  const meter = lane.spend.snapshot().find((m) => m.label === READ_METER_LABEL);
  return meter ? { day: meter.period, used: meter.used, limit: meter.limit } : null;
}
