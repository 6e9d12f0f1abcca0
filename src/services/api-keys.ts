// API keys as use cases: create (plaintext returned once), list, find and revoke. Checking a
// presented key is key-authenticator.ts (and authenticate.ts, which counts a refusal).
import { randomBytes } from 'node:crypto';
import { apiKeyStart, formatApiKey, hashApiKey } from '../domain/api-key-format.ts';
import { PerchError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Role } from '../domain/roles.ts';
import {
  countActiveAdminKeys,
  findApiKey,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  type ApiKey,
} from '../storage/api-keys-repo.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import { deleteSessionsOfKey } from '../storage/ui-sessions-repo.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';
import { inTransactionOnce, type Executor, type Once, type Outcome } from './idempotency.ts';
import type { KeyAuthenticator } from './key-authenticator.ts';

/** What the key use cases work with; the composer builds it once. */
export interface KeyDeps {
  store: Store;
  clock: Clock;
  /** The secret keys are hashed under. */
  secret: string;
  /** Seals the answers kept for Idempotency-Key replays. */
  sealKey: Buffer;
  /** ADMIN_API_KEY is set: the last stored admin key may then be revoked. */
  envAdminConfigured: boolean;
  /** This process's key checks, told of a revocation before it is written; null where none run (a command). */
  authenticator: Pick<KeyAuthenticator, 'beginRevocation' | 'invalidate'> | null;
}

export interface CreatedApiKey extends ApiKey {
  apiKey: string;
}

export interface NewKeyInput {
  role: Role;
  username: string;
  name?: string | null;
  expiresAt?: number | null;
  actor: string | null;
}

/** Writes a key and its audit row with `trx`; call it inside a transaction, so both commit together. */
export async function createApiKey(
  trx: Executor,
  secret: string,
  clock: Clock,
  input: NewKeyInput,
): Promise<CreatedApiKey> {
  const now = clock.now();
  if (input.expiresAt != null && input.expiresAt <= now)
    throw new PerchError('expiry_in_past', 'expiresAt must be in the future.');
  const plaintext = formatApiKey(randomBytes(32));
  const key = await insertApiKey(trx, {
    id: newId('key'),
    keyHash: hashApiKey(plaintext, secret),
    start: apiKeyStart(plaintext),
    role: input.role,
    username: input.username,
    name: input.name ?? null,
    createdBy: input.actor,
    expiresAt: input.expiresAt ?? null,
    now,
  });
  await writeAudit(trx, {
    actor: input.actor,
    action: 'api_key.create',
    target: key.id,
    detail: { role: key.role, username: key.username },
    at: now,
  });
  return { ...key, apiKey: plaintext };
}

/** Creating a key as a use case: opens the transaction (stored for replay under `once`, if given). */
export async function issueApiKey(
  keys: KeyDeps,
  input: NewKeyInput,
  once: Once | null = null,
): Promise<Outcome<CreatedApiKey>> {
  return inTransactionOnce(keys, once, 201, (trx) => createApiKey(trx, keys.secret, keys.clock, input));
}

/** A page of keys by id, without their secrets. */
export async function listKeys(
  keys: KeyDeps,
  options: { includeRevoked: boolean; limit: number; after?: string },
): Promise<ApiKey[]> {
  return listApiKeys(keys.store.reader, options);
}

/** One key by id (revoked or not), or null; read from the writer, so a command sees its own writes. */
export async function findKey(keys: KeyDeps, id: string): Promise<ApiKey | null> {
  return findApiKey(keys.store.db, id);
}

/**
 * Revokes a key and returns when it was revoked: now, or earlier if it already was (revoking twice
 * is harmless). Refuses to remove the last admin key when no ADMIN_API_KEY could replace it.
 * This process refuses the key from the start, before the write (which may wait behind an import
 * for SQLite's one writer) commits; a revocation that fails gives the key back.
 */
export async function revokeKey(
  keys: KeyDeps,
  id: string,
  actor: string | null,
): Promise<{ revokedAt: number; already: boolean }> {
  const undo = keys.authenticator?.beginRevocation(id);
  const revoked = await writeRevocation(keys, id, actor).catch((error: unknown) => {
    undo?.();
    throw error;
  });
  keys.authenticator?.invalidate(id);
  return revoked;
}

async function writeRevocation(
  { store, clock, envAdminConfigured }: KeyDeps,
  id: string,
  actor: string | null,
): Promise<{ revokedAt: number; already: boolean }> {
  const now = clock.now();
  return store.db.transaction().execute(async (trx) => {
    // Two admins revoking the last two admin keys at once must not both succeed.
    await store.caps.serialize(trx, 'admin_keys');
    const row = await trx
      .selectFrom('api_keys')
      .select(['id', 'role', 'revoked_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw new PerchError('api_key_not_found', `No API key has the id ${id}.`);
    if (row.revoked_at !== null) return { revokedAt: row.revoked_at, already: true };
    if (row.role === 'admin' && !envAdminConfigured && (await countActiveAdminKeys(trx, now)) <= 1) {
      throw new PerchError(
        'last_admin_key',
        'This is the last admin key and ADMIN_API_KEY is not set: create another admin key first.',
      );
    }
    await revokeApiKey(trx, id, now);
    // Its dashboard sign-ins end with it (they are also refused by their lookup, on every process).
    await deleteSessionsOfKey(trx, id);
    await writeAudit(trx, { actor, action: 'api_key.revoke', target: id, at: now });
    return { revokedAt: now, already: false };
  });
}

export { ENV_ADMIN_KEY_ID, KeyAuthenticator, type KeyCheck, type Principal } from './key-authenticator.ts';
export type { ApiKey };
