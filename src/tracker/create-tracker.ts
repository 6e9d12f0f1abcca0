// Builds a tracker from the configuration: one client per platform, the settings, the budgets.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createBlueskyClient } from '../platforms/bluesky.ts';
import { createXClient } from '../platforms/x.ts';
import type { Store } from '../storage/store.ts';
import type { TrackerMetrics, TrackerSettings } from './context.ts';
import { spendPlans } from '../limits/spend-plan.ts';
import { Tracker } from './tracker.ts';
import { systemClock, type SleepingClock } from '../clock.ts';

/** Posts kept per account: enough for 30 days of analysis for all but the busiest accounts. */
export const POSTS_PER_ACCOUNT = 200;

export function trackerSettings(config: Config): TrackerSettings {
  return {
    intervalMs: config.trackIntervalMs,
    leaseMs: config.trackLeaseMs,
    historyBucketMs: config.historyBucketMs,
    postsPerAccount: POSTS_PER_ACCOUNT,
    postsPerFetch: 100,
    batchesInFlight: config.trackConcurrency,
    postFetchesInFlight: 8,
    postRefreshWindowMs: config.postRefreshWindowMs,
    postsRefreshedPerAccount: 100,
    events: { spikePercent: config.followerSpikePercent },
    followers: {
      intervalMs: config.followerListIntervalMs,
      leaseMs: config.trackLeaseMs,
      rule: { maxFollowers: config.followerListMax, tags: config.followerListTags },
    },
  };
}

export function createTracker(
  config: Config,
  store: Store,
  logger: Logger,
  options: { clock?: SleepingClock; metrics?: TrackerMetrics; role?: string } = {},
): Tracker {
  const clock = options.clock ?? systemClock;
  return new Tracker({
    store,
    clients: [
      createXClient({ baseUrl: config.xApiBaseUrl, bearerToken: config.xBearerToken, now: clock.now }),
      createBlueskyClient({ baseUrl: config.blueskyApiBaseUrl, now: clock.now }),
    ],
    clock,
    settings: trackerSettings(config),
    logger: logger.child({ component: 'tracker' }),
    spendPlans: spendPlans(config),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.role ? { role: options.role } : {}),
  });
}
