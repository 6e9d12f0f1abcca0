// Everything one tracker's units of work share: the store, a platform's client and its gates,
// the clock, the settings, the metrics sink and the logger. Built once by the tracker loop.
import type { Logger } from 'pino';
import type { EventRules } from '../domain/events.ts';
import type { Platform } from '../domain/platforms.ts';
import type { Endpoint, PlatformClient, PlatformErrorKind } from '../platforms/types.ts';
import type { Store } from '../storage/store.ts';
import type { AlertRuleBook } from './alert-rulebook.ts';
import type { RateGate } from '../limits/rate-gate.ts';
import type { SpendBudget } from '../limits/spend-budget.ts';
import type { SleepingClock } from '../clock.ts';
import type { FollowerRule } from '../storage/follower-claims-repo.ts';

/** How follower passes run (null: off): every `intervalMs`, each under a lease of `leaseMs`, for the accounts `rule` picks. */
export interface FollowerPassSettings {
  intervalMs: number;
  leaseMs: number;
  rule: FollowerRule;
}

export interface TrackerSettings {
  intervalMs: number;
  leaseMs: number;
  /** Width of a history bucket: one snapshot per account per bucket. */
  historyBucketMs: number;
  /** Posts kept per account (the newest). */
  postsPerAccount: number;
  /** Posts asked for in one timeline read. */
  postsPerFetch: number;
  /** Lookup batches in flight at once per platform. */
  batchesInFlight: number;
  /** Timeline reads in flight at once per batch. */
  postFetchesInFlight: number;
  /** Posts younger than this have their metrics read again at each check (POST_REFRESH_WINDOW). */
  postRefreshWindowMs: number;
  /** Most posts per account whose metrics one check reads again (the newest). */
  postsRefreshedPerAccount: number;
  /** Rules of the events a check produces; null: checks record no events. */
  events: EventRules | null;
  /** Follower passes (DESIGN §11); null: none run. */
  followers: FollowerPassSettings | null;
}

export interface TrackerMetrics {
  platformRequest(platform: Platform, endpoint: Endpoint, outcome: 'ok' | PlatformErrorKind): void;
  rateLimitWait(platform: Platform, ms: number): void;
  batchDone(platform: Platform, seconds: number, accounts: number): void;
  accountChecked(platform: Platform, verdict: string): void;
  /** Timeline reads skipped because a healthy Jetstream shard brings those accounts' posts. */
  timelineReadsSaved(platform: Platform, n: number): void;
}

export const NO_METRICS: TrackerMetrics = {
  platformRequest: () => {},
  rateLimitWait: () => {},
  batchDone: () => {},
  accountChecked: () => {},
  timelineReadsSaved: () => {},
};

export interface PlatformLane {
  client: PlatformClient;
  /** One gate per endpoint; endpoints in one of the platform's rate-limit groups share it. */
  gates: Record<Endpoint, RateGate>;
  /** What the platform's reads may cost and did cost (X's budgets and ledger; Bluesky's free ledger). */
  spend: SpendBudget;
}

export interface TrackerContext {
  store: Store;
  lane: PlatformLane;
  clock: SleepingClock;
  settings: TrackerSettings;
  metrics: TrackerMetrics;
  logger: Logger;
  random: () => number;
  /** The enabled alert rules, kept between batches (read again when they change). */
  alertRules: AlertRuleBook;
  /**
   * Lease owner of the batch at hand: the tracker's id and a claim number. A claim of its own, so
   * that if a batch outlives its lease and the same tracker claims those accounts again, the
   * stale batch cannot write over the new one.
   */
  owner: string;
  signal: AbortSignal;
}
