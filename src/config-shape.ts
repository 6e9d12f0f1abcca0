// The shape of perch's configuration: every setting, typed and documented (config.ts builds it).
import type { Platform } from './domain/platforms.ts';
import type { RateCard } from './domain/spend.ts';
import type { MailSettings } from './config-mail.ts';
import type { FollowerSettings } from './config-followers.ts';
import type { StreamConfig } from './config-stream.ts';

export interface Config extends MailSettings, FollowerSettings, StreamConfig {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  /** Folder for the embedded store and its generated secret; null on PostgreSQL. */
  readonly dataDir: string | null;
  readonly adminApiKey: string | null;
  readonly keyHashSecret: string | null;
  readonly defaultPlatform: Platform;
  readonly xBearerToken: string | null;
  readonly xApiBaseUrl: string;
  readonly blueskyApiBaseUrl: string;
  readonly trackIntervalMs: number;
  /** How long a tracker holds claimed accounts before another may take them (a crashed tracker's work comes back after it). */
  readonly trackLeaseMs: number;
  /** Width of a history bucket: at most one snapshot per account per bucket. */
  readonly historyBucketMs: number;
  /** Posts younger than this have their metrics read again at each check of their account. */
  readonly postRefreshWindowMs: number;
  /** Lookup batches in flight at once per platform in one tracker. */
  readonly trackConcurrency: number;
  /** PostgreSQL connections per process (ignored on SQLite). */
  readonly databasePoolSize: number;
  /** Where `perch worker` serves health and metrics; null: it does not listen. */
  readonly workerPort: number | null;
  readonly tracker: boolean;
  readonly xDailyReadBudget: number;
  /** Dollars X may bill per UTC day / calendar month (UTC); null: no dollar budget. */
  readonly xDailyBudgetUsd: number | null;
  readonly xMonthlyBudgetUsd: number | null;
  /** Post reads X allows per month (UTC calendar month). */
  readonly xMonthlyPostCap: number;
  /** What X bills per resource returned, in micro-dollars by kind. */
  readonly xRateCard: RateCard;
  readonly maxImportBytes: number;
  readonly maxImportRows: number;
  readonly logLevel: string;
  /** Requests per minute allowed to one API key. */
  readonly rateLimitPerMinute: number;
  /** Failed authentications per minute from one client before it is throttled. */
  readonly authFailuresPerMinute: number;
  /** How long a validated key is trusted before it is looked up again: the bound on revocation. */
  readonly keyCacheTtlMs: number;
  /** Event streams (GET /api/events/stream) one key may hold open on a process. */
  readonly eventStreamsPerKey: number;
  /** Event streams open on a process, all keys together. */
  readonly eventStreamsMax: number;
  readonly requestTimeoutMs: number;
  /** false, a number of proxy hops to trust, or a comma-separated list of proxy addresses/CIDRs. */
  readonly trustProxy: boolean | number | string;

  // Operations: shutdown, the cost of public endpoints, bounded growth.
  /** How long a stop may take before the process exits 1 with work still open. */
  readonly shutdownTimeoutMs: number;
  /** When set, /metrics wants `Authorization: Bearer <key>`. */
  readonly metricsKey: string | null;
  /** When set, /metrics is served on this port only (not beside the API). */
  readonly metricsPort: number | null;
  /** Store counts shown by /metrics and /api/health are computed at most once per this interval. */
  readonly metricsIntervalMs: number;
  /** How long rows are kept before they are pruned; null keeps them for ever. */
  readonly retention: Readonly<Record<RetainedTable, number | null>>;
  /** A follower move of at least this many percent (and 100 followers) within 24 h is a spike. */
  readonly followerSpikePercent: number;
  /** Longest time one webhook delivery may take, response included. */
  readonly webhookTimeoutMs: number;
  /** Waits before each retry of a failed delivery (each ± 20 % jitter); after the last, it has failed. */
  readonly webhookRetryScheduleMs: readonly number[];
  /** Let webhooks reach loopback, private, link-local and multicast addresses (tests, demo, private networks). */
  readonly webhookAllowPrivate: boolean;
  /** Deliveries in flight at once in one process (an endpoint gets at most a quarter of them). */
  readonly webhookConcurrency: number;
  /** How long a dashboard sign-in lasts. */
  readonly uiSessionTtlMs: number;
  /** Whether the dashboard loads profile images from the platforms (off: nothing remote is loaded). */
  readonly uiRemoteImages: boolean;
  /** PostgreSQL keeps the hottest statements prepared per connection; off behind a transaction-mode pooler. */
  readonly preparedStatements: boolean;
}

/** Tables pruned by age (services/retention.ts); the setting is `<NAME>_RETENTION` (events: `EVENT_RETENTION`, followers: `FOLLOWER_RETENTION`). */
export const RETAINED_TABLES = ['history', 'audit', 'imports', 'idempotency', 'events', 'followers', 'mail'] as const;
export type RetainedTable = (typeof RETAINED_TABLES)[number];
