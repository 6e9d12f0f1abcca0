// Idempotency-Key on POSTs: a retry with the same key and the same request gets the first response
// back instead of a second key or import. Records live 24 h and are written in the action's
// transaction, so a crash cannot leave an action without its record or the reverse. They are
// sealed (AES-GCM under a key derived from KEY_HASH_SECRET): a created API key must replay, yet
// never lie in the database in clear.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { PerchError } from '../domain/errors.ts';
import { open, seal } from '../domain/sealed-box.ts';
import type { Clock } from '../services/clock.ts';
import { findIdempotentResponse, saveIdempotentResponse } from '../storage/idempotency-repo.ts';
import type { Database } from '../storage/schema.ts';
import type { Store } from '../storage/store.ts';
import { principalOf } from './auth.ts';

const RETENTION_MS = 24 * 3_600_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentResult<T> {
  statusCode: number;
  body: T;
  replayed: boolean;
}

export type Remember = (trx: Kysely<Database>, statusCode: number, body: unknown) => Promise<void>;

export function hashRequest(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

/**
 * Runs `action` once per (caller, Idempotency-Key, route). `action` must call `remember` inside
 * its transaction. Without the header it simply runs.
 */
export async function idempotent<T>(
  { store, clock, sealKey }: { store: Store; clock: Clock; sealKey: Buffer },
  request: FastifyRequest,
  requestHash: string,
  action: (remember: Remember) => Promise<{ statusCode: number; body: T }>,
): Promise<IdempotentResult<T>> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return { ...(await action(async () => {})), replayed: false };
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw new PerchError('bad_request', 'Idempotency-Key must be 1-255 visible ASCII characters.');
  }
  const owner = principalOf(request).keyId;
  const route = `${request.method} ${request.routeOptions.url ?? ''}`;
  const replay = async (): Promise<IdempotentResult<T> | null> => {
    const stored = await findIdempotentResponse(store.db, owner, header, route, clock.now() - RETENTION_MS);
    if (!stored) return null;
    if (stored.requestHash !== requestHash) {
      throw new PerchError('idempotency_key_mismatch', 'This Idempotency-Key was used with a different request; use a new key.');
    }
    const body = open(stored.response, sealKey);
    // Sealed under another secret (KEY_HASH_SECRET changed): the answer cannot be given again.
    if (body === null) throw new PerchError('idempotency_key_mismatch', 'This Idempotency-Key cannot be replayed any more; use a new key.');
    return { statusCode: stored.statusCode, body: JSON.parse(body) as T, replayed: true };
  };
  const earlier = await replay();
  if (earlier) return earlier;
  try {
    const result = await action(async (trx, statusCode, body) => {
      const now = clock.now();
      const response = seal(JSON.stringify(body), sealKey);
      await saveIdempotentResponse(trx, { owner, key: header, route, requestHash, statusCode, response, now, expiredBefore: now - RETENTION_MS });
    });
    return { ...result, replayed: false };
  } catch (error) {
    // A concurrent request with the same key committed first: answer as it did.
    if (store.caps.isUniqueViolation(error)) {
      const winner = await replay();
      if (winner) return winner;
      throw new PerchError('idempotency_in_progress', 'A request with this Idempotency-Key is in progress; retry shortly.');
    }
    throw error;
  }
}
