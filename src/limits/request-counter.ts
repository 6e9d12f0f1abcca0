// The per-key request counter as @fastify/rate-limit's store: windows are fixed and aligned to
// multiples of their length on the app's clock, so every `perch api` process agrees on where one
// starts and when it resets; the counts live in the store (see request-blocks.ts for how).
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../storage/schema.ts';
import type { WarnLog } from './pacing.ts';
import { RequestBlocks, type Place } from './request-blocks.ts';

export { STALL_MS } from './request-blocks.ts';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

export interface RateLimitStoreDeps {
  db: Kysely<Database>;
  clock: Clock;
  log: WarnLog;
}

/**
 * The store class the plugin instantiates (it passes its own options, so the dependencies are
 * closed over). A failure to count is passed to the plugin, which is registered with
 * `skipOnError`: the request is let through, not refused. The counter fails open because it only
 * fails when the store is unreachable or busy, and then the route itself answers 503. A stalled
 * store is no failure: the process counts on alone until the write lands (see STALL_MS).
 */
export function sharedRateLimitStore({ db, clock, log }: RateLimitStoreDeps): FastifyRateLimitStoreCtor {
  // Shared by the store and its per-route children (their buckets are prefixed apart).
  const blocks = new RequestBlocks({ db, now: () => clock.now(), log });

  class SharedRateLimitStore implements FastifyRateLimitStore {
    private readonly prefix: string;

    /** `prefix` keeps the counts of a route with its own limit apart from the global ones. */
    constructor(_options: FastifyRateLimitOptions, prefix = '') {
      this.prefix = prefix;
    }

    incr(key: string, callback: Callback, timeWindow = 60_000, max = Number.POSITIVE_INFINITY): void {
      blocks.take(this.prefix + key, timeWindow, max).then(
        (place) => callback(null, place),
        (error: unknown) => {
          blocks.warnUnavailable(error);
          callback(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }

    child(options: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      // The plugin passes the route's merged limit options with the route under `routeInfo`
      // (its typings say the route itself).
      const route = (options as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo ?? {};
      return new SharedRateLimitStore(options, `${String(route.method)} ${String(route.url)}|`);
    }
  }
  return SharedRateLimitStore;
}

/** The per-key counter as the API's own hook uses it (http/request-limit.ts). */
export interface RequestCounter {
  /** The request's place in its window: at once while this process holds counts, else once a block lands. */
  place(bucket: string, windowMs: number, max: number): Place | Promise<Place>;
  /** One warning per spell that the store could not count (the request is let through). */
  warnUnavailable(error?: unknown): void;
}

/** The counter of requests per key (or client), shared by every process through the store in blocks. */
export function sharedRequestCounter({ db, clock, log }: RateLimitStoreDeps): RequestCounter {
  const blocks = new RequestBlocks({ db, now: () => clock.now(), log });
  return {
    place: (bucket, windowMs, max) => blocks.tryTake(bucket, windowMs, max) ?? blocks.take(bucket, windowMs, max),
    warnUnavailable: blocks.warnUnavailable,
  };
}
