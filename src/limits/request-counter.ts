// The per-key request counter: windows are fixed and aligned to multiples of their length on the
// app's clock, so every `perch api` process agrees on where one starts and when it resets; the
// counts live in the store (see request-blocks.ts for how). A count that fails lets the request
// through: it only fails when the store is unreachable or busy, and then the route itself answers
// 503. A stalled store is no failure: the process counts on alone until the write lands (STALL_MS).
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../storage/schema.ts';
import type { WarnLog } from './pacing.ts';
import { RequestBlocks, type Place } from './request-blocks.ts';

export { STALL_MS } from './request-blocks.ts';

export interface RequestCounterDeps {
  db: Kysely<Database>;
  clock: Clock;
  log: WarnLog;
}

/** The per-key counter as the API's own hook uses it (http/request-limit.ts). */
export interface RequestCounter {
  /** The request's place in its window: at once while this process holds counts, else once a block lands. */
  place(bucket: string, windowMs: number, max: number): Place | Promise<Place>;
  /** One warning per spell that the store could not count (the request is let through). */
  warnUnavailable(error?: unknown): void;
}

/** The counter of requests per key (or client), shared by every process through the store in blocks. */
export function sharedRequestCounter({ db, clock, log }: RequestCounterDeps): RequestCounter {
  const blocks = new RequestBlocks({ db, now: () => clock.now(), log });
  return {
    place: (bucket, windowMs, max) => blocks.tryTake(bucket, windowMs, max) ?? blocks.take(bucket, windowMs, max),
    warnUnavailable: blocks.warnUnavailable,
  };
}
