// Idempotency-Key on POSTs, as the owner of the action's transaction: a retry with the same key and
// the same request gets the first answer back instead of a second key or import. The record is
// written in the action's transaction, so a crash cannot leave an action without its record or the
// reverse. Records live 24 h and are sealed (AES-GCM under a key derived from KEY_HASH_SECRET): a
// created API key must replay, yet never lie in the database in clear.
import { PerchError } from '../domain/errors.ts';
import { open, seal } from '../domain/sealed-box.ts';
import { findIdempotentResponse, saveIdempotentResponse } from '../storage/idempotency-repo.ts';
import type { Executor, Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';

const RETENTION_MS = 24 * 3_600_000;

/** Who asked for what under which key; null when the request carried no Idempotency-Key. */
export interface Once {
  owner: string;
  key: string;
  route: string;
  requestHash: string;
}

export interface Outcome<T> {
  statusCode: number;
  body: T;
  replayed: boolean;
}

/** The executor a use case hands down to its steps inside the transaction it opened. */
export type { Executor };

/** What the helper works with: the store, the time, and the key that seals stored answers. */
export interface OnceDeps {
  /** Its writer and dialect only (a worker thread passes the connection it opened). */
  store: Pick<Store, 'db' | 'caps'>;
  clock: Clock;
  sealKey: Buffer;
}

async function replay<T>({ store, clock, sealKey }: OnceDeps, once: Once): Promise<Outcome<T> | null> {
  const stored = await findIdempotentResponse(store.db, once.owner, once.key, once.route, clock.now() - RETENTION_MS);
  if (!stored) return null;
  if (stored.requestHash !== once.requestHash) {
    throw new PerchError(
      'idempotency_key_mismatch',
      'This Idempotency-Key was used with a different request; use a new key.',
    );
  }
  const body = open(stored.response, sealKey);
  // Sealed under another secret (KEY_HASH_SECRET changed): the answer cannot be given again.
  if (body === null)
    throw new PerchError(
      'idempotency_key_mismatch',
      'This Idempotency-Key cannot be replayed any more; use a new key.',
    );
  return { statusCode: stored.statusCode, body: JSON.parse(body) as T, replayed: true };
}

/**
 * Opens the one transaction of an action and runs `write` in it. With `once`, an earlier answer
 * to the same request is given back instead, and this answer is stored in the same transaction.
 */
export async function inTransactionOnce<T>(
  deps: OnceDeps,
  once: Once | null,
  statusCode: number,
  write: (trx: Executor) => Promise<T>,
): Promise<Outcome<T>> {
  const { store, clock, sealKey } = deps;
  if (once === null) return { statusCode, body: await store.db.transaction().execute(write), replayed: false };
  const earlier = await replay<T>(deps, once);
  if (earlier) return earlier;
  try {
    const body = await store.db.transaction().execute(async (trx) => {
      const result = await write(trx);
      const now = clock.now();
      const response = seal(JSON.stringify(result), sealKey);
      const { owner, key, route, requestHash } = once;
      await saveIdempotentResponse(trx, {
        owner,
        key,
        route,
        requestHash,
        statusCode,
        response,
        now,
        expiredBefore: now - RETENTION_MS,
      });
      return result;
    });
    return { statusCode, body, replayed: false };
  } catch (error) {
    // A concurrent request with the same key committed first: answer as it did.
    if (store.caps.isUniqueViolation(error)) {
      const winner = await replay<T>(deps, once);
      if (winner) return winner;
      throw new PerchError(
        'idempotency_in_progress',
        'A request with this Idempotency-Key is in progress; retry shortly.',
      );
    }
    throw error;
  }
}
