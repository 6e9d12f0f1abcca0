// Builds the Bluesky stream from the configuration, beside the tracker it wakes: `perch serve`
// holds every shard; each `perch worker` holds its fair share of them (the shards over the workers
// alive now, from the trackers' heartbeats), so a new worker takes some over as leases come free.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { systemClock, type SleepingClock } from '../clock.ts';
import { LOST_AFTER_MS } from '../domain/tracker-status.ts';
import type { Store } from '../storage/store.ts';
import { recentTrackers } from '../storage/tracker-processes-repo.ts';
import { POSTS_PER_ACCOUNT } from '../tracker/create-tracker.ts';
import { BlueskyStream } from './bluesky-stream.ts';
import { FollowStream } from './follow-stream.ts';
import type { StreamMetrics } from './metrics.ts';

export interface StreamBuild {
  owner: string;
  role: 'serve' | 'worker';
  wakeTracker(): void;
  metrics?: StreamMetrics;
  clock?: SleepingClock;
  /** Tests: smaller shards, to have several without 10,000 accounts. */
  shardSize?: number;
}

export function createBlueskyStream(config: Config, store: Store, logger: Logger, build: StreamBuild): BlueskyStream {
  const clock = build.clock ?? systemClock;
  const fairShare = async (shards: number): Promise<number> => {
    if (build.role === 'serve') return shards;
    const now = clock.now();
    const workers = (await recentTrackers(store.reader, now - LOST_AFTER_MS)).filter(
      (t) => t.stoppedAt === null && t.role === 'worker',
    ).length;
    return Math.ceil(shards / Math.max(1, workers));
  };
  return new BlueskyStream({
    store,
    urls: config.blueskyJetstreamUrls,
    rewindMs: config.jetstreamRewindMs,
    owner: build.owner,
    clock,
    logger: logger.child({ component: 'stream' }),
    wakeTracker: build.wakeTracker,
    fairShare,
    postsPerAccount: POSTS_PER_ACCOUNT,
    intervalMs: config.trackIntervalMs,
    leaseMs: config.jetstreamLeaseMs,
    // A tenth of the lease: a shard is renewed many times before it could expire.
    refreshMs: Math.min(2_000, Math.max(100, Math.floor(config.jetstreamLeaseMs / 10))),
    ...(build.metrics ? { metrics: build.metrics } : {}),
    ...(build.shardSize ? { shardSize: build.shardSize } : {}),
  });
}

/** The follows stream (live follower changes, DESIGN §11), held by one process at a time under its lease. */
export function createFollowStream(config: Config, store: Store, logger: Logger, build: StreamBuild): FollowStream {
  return new FollowStream({
    store,
    urls: config.blueskyJetstreamUrls,
    rewindMs: config.jetstreamRewindMs,
    owner: build.owner,
    clock: build.clock ?? systemClock,
    logger: logger.child({ component: 'follows-stream' }),
    rule: { maxFollowers: config.followerListMax, tags: config.followerListTags },
    leaseMs: config.jetstreamLeaseMs,
    refreshMs: Math.min(2_000, Math.max(100, Math.floor(config.jetstreamLeaseMs / 10))),
    ...(build.metrics ? { metrics: build.metrics } : {}),
  });
}
