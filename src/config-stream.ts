// The Jetstream settings (DESIGN.md §10), read apart from config.ts so that file stays a list:
// BLUESKY_JETSTREAM_URL (`off` disables the stream), BLUESKY_JETSTREAM_FALLBACK_URLS,
// JETSTREAM_REWIND and JETSTREAM_LEASE.
import { parseDuration } from './domain/units.ts';

export const DEFAULT_JETSTREAM_URL = 'wss://jetstream2.us-east.bsky.network/subscribe';

export interface StreamConfig {
  /** The subscribe URL, then the fallbacks in turn; empty when the stream is off. */
  readonly blueskyJetstreamUrls: readonly string[];
  /** How far before its cursor a shard resumes (replayed frames change nothing). */
  readonly jetstreamRewindMs: number;
  /** How long a worker holds a shard without renewing it before another takes it over. */
  readonly jetstreamLeaseMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

export function streamConfig(env: Env, problems: string[]): StreamConfig {
  const text = (name: string): string | null => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? null : value;
  };
  const wsUrl = (name: string, raw: string): string | null => {
    try {
      const url = new URL(raw);
      if (url.protocol === 'ws:' || url.protocol === 'wss:') return url.toString();
    } catch {
      // reported below
    }
    problems.push(`${name} must be a ws:// or wss:// URL (got "${raw}")`);
    return null;
  };
  const duration = (name: string, fallback: number, minMs: number): number => {
    const raw = text(name);
    if (raw === null) return fallback;
    const value = raw === '0' ? 0 : parseDuration(raw);
    if (value === null || value < minMs) {
      problems.push(`${name} must be a duration such as 5s or 1m, at least ${minMs / 1000}s (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const main = text('BLUESKY_JETSTREAM_URL') ?? DEFAULT_JETSTREAM_URL;
  const off = main.toLowerCase() === 'off';
  const fallbacks = (text('BLUESKY_JETSTREAM_FALLBACK_URLS') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const urls = off
    ? []
    : [main, ...fallbacks].map((raw, i) =>
        wsUrl(i === 0 ? 'BLUESKY_JETSTREAM_URL' : 'BLUESKY_JETSTREAM_FALLBACK_URLS', raw),
      );
  return {
    blueskyJetstreamUrls: urls.filter((url): url is string => url !== null),
    jetstreamRewindMs: duration('JETSTREAM_REWIND', 5_000, 0),
    jetstreamLeaseMs: duration('JETSTREAM_LEASE', 30_000, 1_000),
  };
}
