// Stored responses of POSTs sent with an Idempotency-Key, so a retry gets the first answer back.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface StoredResponse {
  requestHash: string;
  statusCode: number;
  /** The response as the caller stored it (sealed: it may hold a new key). */
  response: string;
}

export async function findIdempotentResponse(
  db: Kysely<Database>,
  owner: string,
  key: string,
  route: string,
  notBefore: number,
): Promise<StoredResponse | null> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status_code', 'response'])
    .where('owner', '=', owner)
    .where('idempotency_key', '=', key)
    .where('route', '=', route)
    .where('created_at', '>=', notBefore)
    .executeTakeFirst();
  return row ? { requestHash: row.request_hash, statusCode: row.status_code, response: row.response } : null;
}

/**
 * Plain insert: a concurrent request with the same key fails on the primary key and replays.
 * Expired records (of every caller) are deleted on the way, so the table never outgrows a day.
 */
export async function saveIdempotentResponse(
  db: Kysely<Database>,
  entry: {
    owner: string;
    key: string;
    route: string;
    requestHash: string;
    statusCode: number;
    response: string;
    now: number;
    expiredBefore: number;
  },
): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', entry.expiredBefore).execute();
  await db
    .insertInto('idempotency_keys')
    .values({
      owner: entry.owner,
      idempotency_key: entry.key,
      route: entry.route,
      request_hash: entry.requestHash,
      status_code: entry.statusCode,
      response: entry.response,
      created_at: entry.now,
    })
    .execute();
}
