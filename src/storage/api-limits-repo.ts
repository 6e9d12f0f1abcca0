// The API's fixed-window counters, shared by every `perch api` process through the store: requests
// per key (or client address) and failed authentications per client address. One row per window;
// windows are aligned to multiples of their length, so every process agrees on where one starts.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Start of the fixed window of length `windowMs` that holds `now`. */
export const windowStartOf = (now: number, windowMs: number): number => Math.floor(now / windowMs) * windowMs;

/**
 * Counts `hits` requests of `bucket` in the window and returns the window's count, these included:
 * the caller owns the counts from the result − hits + 1 to the result. One statement (an upsert
 * with RETURNING, SQLite ≥ 3.35 and PostgreSQL alike), so processes counting the same bucket at
 * once never lose a hit nor get the same count.
 */
export async function countHits(db: Db, bucket: string, windowStart: number, hits = 1): Promise<number> {
  const row = await db
    .insertInto('api_rate_counters')
    .values({ bucket, window_start: windowStart, hits })
    .onConflict((oc) =>
      oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql<number>`api_rate_counters.hits + ${hits}` }),
    )
    .returning('hits')
    .executeTakeFirstOrThrow();
  return Number(row.hits);
}

/** Counts one failed authentication of `client` in the window and returns the window's count. */
export async function recordAuthFailure(db: Db, client: string, windowStart: number): Promise<number> {
  const row = await db
    .insertInto('auth_failures')
    .values({ client, window_start: windowStart, failures: 1 })
    .onConflict((oc) =>
      oc.columns(['client', 'window_start']).doUpdateSet({ failures: sql<number>`auth_failures.failures + 1` }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return Number(row.failures);
}

/** Failed authentications of `client` in the window (a point read on the primary key). */
export async function authFailures(db: Db, client: string, windowStart: number): Promise<number> {
  const row = await db
    .selectFrom('auth_failures')
    .select('failures')
    .where('client', '=', client)
    .where('window_start', '=', windowStart)
    .executeTakeFirst();
  return row ? Number(row.failures) : 0;
}

/** Deletes request counts of windows that started before `before`. */
export async function pruneRateCounters(db: Db, before: number): Promise<void> {
  await db.deleteFrom('api_rate_counters').where('window_start', '<', before).execute();
}

/** Deletes failed-authentication counts of windows that started before `before`. */
export async function pruneAuthFailures(db: Db, before: number): Promise<void> {
  await db.deleteFrom('auth_failures').where('window_start', '<', before).execute();
}
