// One validated, frozen configuration object, built from the environment by a pure function.
import { isIP } from 'node:net';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isPlatform } from './domain/platforms.ts';
import { parseDuration, parseSize } from './domain/units.ts';
import { toMicros, toUsd, X_RATES_APRIL_2026 } from './domain/spend.ts';
import { PERCH_HOME } from './perch-home.ts';
import { RETAINED_TABLES, type Config, type RetainedTable } from './config-shape.ts';
import { ConfigError } from './config-error.ts';
import { mailSettings } from './config-mail.ts';
import { followerSettings } from './config-followers.ts';
import { streamConfig } from './config-stream.ts';
import { RETENTION_DEFAULTS, retentionSetting } from './config-retention.ts';

export { RETAINED_TABLES, type Config, type RetainedTable } from './config-shape.ts';
export { ConfigError };
export { retentionSetting };

/**
 * The base of a relative `file:` DATABASE_URL: perch's own folder (the one holding package.json
 * and `.env`), whatever folder the command was started from, so `perch import` run from elsewhere
 * finds the same store as the server.
 */
export { PERCH_HOME };

type Env = Readonly<Record<string, string | undefined>>;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Builds the configuration from environment variables; `overrides` win (tests use them). Pure. */
export function createConfig(env: Env, overrides: Partial<Config> = {}, baseDir = PERCH_HOME): Config {
  const problems: string[] = [];
  const text = (name: string): string | null => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? null : value;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const duration = (name: string, fallback: string, minMs = 1_000): number => {
    const raw = text(name) ?? fallback;
    const value = parseDuration(raw);
    if (value === null || value < minMs) {
      problems.push(`${name} must be a duration such as 30s, 15m, 1h or 1d, at least ${minMs / 1000}s (got "${raw}")`);
      return parseDuration(fallback) ?? minMs;
    }
    return value;
  };
  const size = (name: string, fallback: number): number => {
    const raw = text(name);
    if (raw === null) return fallback;
    const value = parseSize(raw);
    if (value === null || value < 1) {
      problems.push(`${name} must be a size in bytes, or with a unit such as 50MiB (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const url = (name: string, fallback: string): string => {
    const raw = text(name) ?? fallback;
    try {
      const parsed = new URL(raw);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an http(s) URL (got "${raw}")`);
      return fallback;
    }
  };
  const durations = (name: string, fallback: string): number[] => {
    const raw = text(name) ?? fallback;
    const values = raw.split(',').map((part) => parseDuration(part));
    if (values.length > 0 && values.length <= 20 && values.every((v): v is number => v !== null && v >= 1_000))
      return values;
    problems.push(
      `${name} must be up to 20 durations of at least 1s separated by commas, such as 5s,5m,30m (got "${raw}")`,
    );
    return fallback.split(',').map((part) => parseDuration(part) ?? 1_000);
  };
  const percent = (name: string, fallback: number): number => {
    const raw = text(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0 || value > 10_000) {
      problems.push(`${name} must be a number of percent above 0 (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const dollars = (name: string, fallback: number | null): number | null => {
    const raw = text(name);
    if (raw === null) return fallback;
    const value = Number(raw.replace(/^\$/, ''));
    if (!Number.isFinite(value) || value < 0 || value > 1_000_000_000) {
      problems.push(`${name} must be an amount of US dollars such as 25 or 0.005 (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const flag = (name: string, fallback: boolean): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['on', 'true', '1', 'yes'].includes(raw)) return true;
    if (['off', 'false', '0', 'no'].includes(raw)) return false;
    problems.push(`${name} must be on or off (got "${raw}")`);
    return fallback;
  };

  // Trusting every hop would let any client pick its own address (and dodge the auth throttle):
  // `on` trusts the nearest proxy only; a number trusts that many; or name the proxies.
  const proxies = (name: string): false | number | string => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined || ['off', 'false', 'no', '0'].includes(raw)) return false;
    if (['on', 'true', 'yes'].includes(raw)) return 1;
    if (/^\d{1,2}$/.test(raw)) return Number(raw);
    const list = raw.split(',').map((p) => p.trim());
    if (list.every((p) => isIP(p.split('/')[0] ?? '') !== 0)) return list.join(',');
    problems.push(
      `${name} must be off, on (one proxy), a number of proxies, or proxy addresses/CIDRs separated by commas (got "${raw}")`,
    );
    return false;
  };

  /** A duration, or `off` (kept for ever). */
  const retentionOf = (table: RetainedTable): number | null => {
    const name = retentionSetting(table);
    if (text(name)?.toLowerCase() === 'off') return null;
    return duration(name, RETENTION_DEFAULTS[table], 3_600_000);
  };
  const retention = Object.fromEntries(RETAINED_TABLES.map((table) => [table, retentionOf(table)])) as Record<
    RetainedTable,
    number | null
  >;
  // The analysis looks 30 days back; shorter history would make its changes null.
  if (retention.history !== null && retention.history < 31 * 86_400_000)
    problems.push('HISTORY_RETENTION must be at least 31d (the analysis reads 30 days of history), or off');
  // A stored replay may hold a new key in plaintext (sealed): never keep one past a day.
  if (retention.idempotency === null || retention.idempotency > 86_400_000)
    problems.push('IDEMPOTENCY_RETENTION must be at most 24h (a stored reply may hold a new key)');
  const metricsKey = text('METRICS_KEY');
  if (metricsKey !== null && metricsKey.length < 32) problems.push('METRICS_KEY must be at least 32 characters');

  let databaseUrl = text('DATABASE_URL') ?? 'file:./data/perch.db';
  let dataDir: string | null = null;
  if (databaseUrl.startsWith('file:')) {
    const path = databaseUrl.slice('file:'.length);
    if (path === '') problems.push('DATABASE_URL file: needs a path, e.g. file:./data/perch.db');
    else if (path !== ':memory:') {
      const absolute = isAbsolute(path) ? path : resolve(baseDir, path);
      databaseUrl = `file:${absolute}`;
      dataDir = dirname(absolute);
    }
  } else if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with file: or postgres:// (got "${databaseUrl.split('@').pop() ?? ''}")`);
  }

  const adminApiKey = text('ADMIN_API_KEY');
  if (adminApiKey !== null && adminApiKey.length < 32) {
    problems.push(
      'ADMIN_API_KEY is too weak: use at least 32 characters (e.g. `openssl rand -base64 32`), or unset it to get a generated key',
    );
  }
  const keyHashSecret = text('KEY_HASH_SECRET');
  if (keyHashSecret !== null && keyHashSecret.length < 32)
    problems.push('KEY_HASH_SECRET must be at least 32 characters');

  const platform = (text('DEFAULT_PLATFORM') ?? 'x').toLowerCase();
  if (!isPlatform(platform)) problems.push(`DEFAULT_PLATFORM must be x or bluesky (got "${platform}")`);
  const logLevel = (text('LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);

  const config: Config = {
    port: integer('PORT', 3000, 0, 65_535),
    host: text('HOST') ?? '127.0.0.1',
    databaseUrl,
    dataDir,
    adminApiKey,
    keyHashSecret,
    defaultPlatform: isPlatform(platform) ? platform : 'x',
    xBearerToken: text('X_BEARER_TOKEN'),
    xApiBaseUrl: url('X_API_BASE_URL', 'https://api.x.com'),
    blueskyApiBaseUrl: url('BLUESKY_API_BASE_URL', 'https://public.api.bsky.app'),
    trackIntervalMs: duration('TRACK_INTERVAL', '1h'),
    trackLeaseMs: duration('TRACK_LEASE', '5m'),
    historyBucketMs: duration('HISTORY_BUCKET', '1h', 60_000),
    postRefreshWindowMs: duration('POST_REFRESH_WINDOW', '7d'),
    trackConcurrency: integer('TRACK_CONCURRENCY', 4, 1, 64),
    databasePoolSize: integer('DATABASE_POOL_SIZE', 10, 1, 1_000),
    // A worker does not take PORT, so `perch api` and `perch worker` on one machine can share one configuration.
    workerPort: text('WORKER_PORT') === null ? null : integer('WORKER_PORT', 0, 0, 65_535),
    tracker: flag('TRACKER', true),
    xDailyReadBudget: integer('X_DAILY_READ_BUDGET', 10_000, 0, 1_000_000_000),
    xDailyBudgetUsd: dollars('X_DAILY_BUDGET_USD', null),
    xMonthlyBudgetUsd: dollars('X_MONTHLY_BUDGET_USD', null),
    xMonthlyPostCap: integer('X_MONTHLY_POST_CAP', 2_000_000, 0, 1_000_000_000_000),
    xRateCard: {
      users: toMicros(dollars('X_PRICE_PER_USER_USD', toUsd(X_RATES_APRIL_2026.users)) ?? 0),
      posts: toMicros(dollars('X_PRICE_PER_POST_USD', toUsd(X_RATES_APRIL_2026.posts)) ?? 0),
    },
    maxImportBytes: size('MAX_IMPORT_BYTES', 50 * 1_048_576),
    maxImportRows: integer('MAX_IMPORT_ROWS', 1_000_000, 1, 100_000_000),
    logLevel,
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', 600, 1, 100_000_000),
    authFailuresPerMinute: integer('AUTH_FAILURES_PER_MINUTE', 20, 1, 1_000_000),
    keyCacheTtlMs: duration('KEY_CACHE_TTL', '2s', 0),
    eventStreamsPerKey: integer('EVENT_STREAMS_PER_KEY', 5, 1, 1_000),
    eventStreamsMax: integer('EVENT_STREAMS_MAX', 500, 1, 100_000),
    requestTimeoutMs: duration('REQUEST_TIMEOUT', '60s'),
    trustProxy: proxies('TRUST_PROXY'),
    shutdownTimeoutMs: duration('SHUTDOWN_TIMEOUT', '10s'),
    metricsKey,
    metricsPort: text('METRICS_PORT') === null ? null : integer('METRICS_PORT', 0, 0, 65_535),
    metricsIntervalMs: duration('METRICS_INTERVAL', '15s'),
    retention,
    followerSpikePercent: percent('FOLLOWER_SPIKE_PERCENT', 10),
    webhookTimeoutMs: duration('WEBHOOK_TIMEOUT', '10s'),
    webhookRetryScheduleMs: durations('WEBHOOK_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,10h'),
    webhookAllowPrivate: flag('WEBHOOK_ALLOW_PRIVATE', false),
    webhookConcurrency: integer('WEBHOOK_CONCURRENCY', 16, 1, 1_000),
    uiSessionTtlMs: duration('UI_SESSION_TTL', '12h', 60_000),
    uiRemoteImages: flag('UI_REMOTE_IMAGES', false),
    preparedStatements: flag('PREPARED_STATEMENTS', true),
    ...mailSettings(text, durations, problems),
    ...followerSettings(text, duration, integer, problems),
    ...streamConfig(env, problems),
    ...overrides,
  };
  if (config.keyHashSecret === null && config.databaseUrl.startsWith('postgres')) {
    problems.push('KEY_HASH_SECRET is required with PostgreSQL (every process must share it)');
  }
  if (config.keyCacheTtlMs > 5_000)
    problems.push('KEY_CACHE_TTL must be at most 5s (it bounds how long a revoked key keeps working)');
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
