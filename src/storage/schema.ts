// The tables as Kysely sees them. Times are epoch milliseconds (UTC) in every dialect; JSON is text.
import type { Generated } from 'kysely';
import type { AlertTables } from './alerts-schema.ts';
import type { EventsWebhooksTables } from './events-schema.ts';
import type { FilterTables } from './filter-schema.ts';
import type { StreamTables } from './stream-schema.ts';
import type { FollowerTables } from './followers-schema.ts';
import type { MailDigestTables } from './mail-schema.ts';

export interface AccountsTable {
  id: Generated<number>;
  platform: string;
  username: string;
  /** Lower-case identity used for uniqueness and lookups. */
  username_key: string;
  platform_user_id: string | null;
  status: Generated<string>;
  status_reason: string | null;
  tags: Generated<string>;
  note: string | null;
  profile: string | null;
  metrics: string | null;
  analysis: string | null;
  renames: Generated<string>;
  /** Copied out of metrics/analysis so that lists can sort on them with an index. */
  followers: number | null;
  followers_change_7d: number | null;
  followers_change_1d: number | null;
  tracked_since: number;
  last_checked_at: number | null;
  next_check_at: number | null;
  consecutive_failures: Generated<number>;
  last_error: string | null;
  /** Set when an admin stops tracking; the row and its history stay until a purge. */
  untracked_at: number | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  /** UTC day (YYYY-MM-DD) the platform last billed this user: a re-check that day is free. */
  billed_on: Generated<string | null>;
  /** Newest post seen, so the next timeline read asks only for newer ones. */
  last_post_id: string | null;
  /** The post count when the timeline was last read: posts are fetched only when it moved. */
  posts_seen_count: number | null;
  /** JSON [[epoch ms, followers], …]: one point per UTC day, the last 31 days, for analysis. */
  follower_series: string | null;
  /** Follower list (DESIGN §11): null follows the default rule, 1 on, 0 off. */
  follower_list: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  key_hash: string;
  start: string;
  role: string;
  username: string;
  name: string | null;
  created_at: number;
  created_by: string | null;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface ImportsTable {
  id: string;
  created_at: number;
  created_by: string | null;
  source: string;
  received: number;
  accepted: number;
  inserted: number;
  reactivated: number;
  already_tracked: number;
  duplicates: number;
  rejected_count: number;
  duration_ms: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  actor: string | null;
  action: string;
  target: string | null;
  detail: string | null;
}

export interface IdempotencyKeysTable {
  owner: string;
  idempotency_key: string;
  route: string;
  request_hash: string;
  status_code: number;
  response: string;
  created_at: number;
}

export interface MetricSnapshotsTable {
  account_id: number;
  /** Start of the time bucket (epoch ms); a later check in the same bucket replaces the row. */
  bucket: number;
  observed_at: number;
  followers: number;
  following: number;
  posts: number;
  listed: number | null;
}

export interface PostsTable {
  account_id: number;
  post_id: string;
  created_at: number;
  text: string;
  url: string | null;
  lang: string | null;
  sentiment: number | null;
  is_repost: number;
  is_reply: number;
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
  /** JSON arrays of strings. */
  hashtags: string;
  mentions: string;
  domains: string;
  fetched_at: number;
  /** When the metrics were last read from the platform (first read or refresh). */
  metrics_observed_at: Generated<number>;
  /** `live`, `deleted` (the platform says it is gone) or `hidden` (withheld from us). */
  status: Generated<string>;
  /** When the post was found deleted or hidden; null while live. */
  status_at: Generated<number | null>;
  /** JSON array of metrics samples at fixed ages (domain/post-history.ts), at most one per age. */
  metrics_history: Generated<string>;
}

/** Resources read from a platform per UTC day (X bills per read; X_DAILY_READ_BUDGET caps it). */
export interface PlatformUsageTable {
  platform: string;
  day: string;
  reads: number;
  /** The grant of the last reservation, so that the reserving upsert can return it. */
  last_grant: Generated<number>;
}

/** X's bill as perch counts it: one row per platform, UTC day and kind of resource. */
export interface SpendLedgerTable {
  platform: string;
  day: string;
  kind: string;
  resources: number;
  /** What the resources cost, in micro-dollars (0 on a free platform). */
  micros: number;
}

export interface RateWindowsTable {
  window_key: string;
  limit_count: number | null;
  remaining: number | null;
  reset_at: Generated<number>;
  blocked_until: Generated<number>;
  probe_until: Generated<number>;
  updated_at: number;
}

export interface ApiRateCountersTable {
  bucket: string;
  window_start: number;
  hits: number;
}

export interface AuthFailuresTable {
  client: string;
  window_start: number;
  failures: number;
}

export interface TrackerProcessesTable {
  owner: string;
  host: string;
  pid: number;
  role: string;
  started_at: number;
  seen_at: number;
  stopped_at: number | null;
  checks: Generated<number>;
  batches: Generated<number>;
}

export interface UiSessionsTable {
  token_hash: string;
  key_id: string;
  role: string;
  username: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
  /** ADMIN_API_KEY's fingerprint for its sessions (migration 012); null for stored keys'. */
  key_fingerprint: string | null;
}

export interface Database
  extends EventsWebhooksTables, FilterTables, StreamTables, FollowerTables, AlertTables, MailDigestTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  imports: ImportsTable;
  audit_log: AuditLogTable;
  idempotency_keys: IdempotencyKeysTable;
  metric_snapshots: MetricSnapshotsTable;
  posts: PostsTable;
  platform_usage: PlatformUsageTable;
  spend_ledger: SpendLedgerTable;
  rate_windows: RateWindowsTable;
  api_rate_counters: ApiRateCountersTable;
  auth_failures: AuthFailuresTable;
  tracker_processes: TrackerProcessesTable;
  ui_sessions: UiSessionsTable;
}
