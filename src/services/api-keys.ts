// API keys as a use case: create (plaintext returned once), list, revoke, and authenticate a presented key.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { apiKeyStart, formatApiKey, hashApiKey, hashesEqual, isWellFormedApiKey } from '../domain/api-key-format.ts';
import { PerchError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Role } from '../domain/roles.ts';
import { countActiveAdminKeys, findApiKeyByHash, insertApiKey, listApiKeys, revokeApiKey, touchApiKey, type ApiKey } from '../storage/api-keys-repo.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import type { Database } from '../storage/schema.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from './clock.ts';
import { inTransactionOnce, type Executor, type Once, type Outcome } from './idempotency.ts';

/** Who is calling: a stored key, or the bootstrap key from ADMIN_API_KEY. */
export interface Principal {
  keyId: string;
  role: Role;
  username: string;
  name: string | null;
  expiresAt: string | null;
}

export const ENV_ADMIN_KEY_ID = 'key_env_admin';

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
export async function createApiKey(trx: Executor, secret: string, clock: Clock, input: NewKeyInput): Promise<CreatedApiKey> {
  const now = clock.now();
  if (input.expiresAt != null && input.expiresAt <= now) throw new PerchError('expiry_in_past', 'expiresAt must be in the future.');
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
  await writeAudit(trx, { actor: input.actor, action: 'api_key.create', target: key.id, detail: { role: key.role, username: key.username }, at: now });
  return { ...key, apiKey: plaintext };
}

/** Creating a key as a use case: opens the transaction (stored for replay under `once`, if given). */
export async function issueApiKey(store: Store, secret: string, clock: Clock, input: NewKeyInput, once: Once | null = null): Promise<Outcome<CreatedApiKey>> {
  return inTransactionOnce({ store, clock }, once, 201, (trx) => createApiKey(trx, secret, clock, input));
}

/** A page of keys by id, without their secrets. */
export async function listKeys(store: Store, options: { includeRevoked: boolean; limit: number; after?: string }): Promise<ApiKey[]> {
  return listApiKeys(store.reader, options);
}

/**
 * Revokes a key and returns when it was revoked: now, or earlier if it already was (revoking twice
 * is harmless). Refuses to remove the last admin key when no ADMIN_API_KEY could replace it.
 */
export async function revokeKey(
  store: Pick<Store, 'db' | 'caps'>,
  clock: Clock,
  id: string,
  options: { actor: string | null; envAdminConfigured: boolean },
): Promise<{ revokedAt: number; already: boolean }> {
  const now = clock.now();
  return store.db.transaction().execute(async (trx) => {
    // Two admins revoking the last two admin keys at once must not both succeed.
    await store.caps.serialize(trx, 'admin_keys');
    const row = await trx.selectFrom('api_keys').select(['id', 'role', 'revoked_at']).where('id', '=', id).executeTakeFirst();
    if (!row) throw new PerchError('api_key_not_found', `No API key has the id ${id}.`);
    if (row.revoked_at !== null) return { revokedAt: row.revoked_at, already: true };
    if (row.role === 'admin' && !options.envAdminConfigured && (await countActiveAdminKeys(trx, now)) <= 1) {
      throw new PerchError('last_admin_key', 'This is the last admin key and ADMIN_API_KEY is not set: create another admin key first.');
    }
    await revokeApiKey(trx, id, now);
    await writeAudit(trx, { actor: options.actor, action: 'api_key.revoke', target: id, at: now });
    return { revokedAt: now, already: false };
  });
}

interface CacheEntry {
  principal: Principal | PerchError;
  expiresAt: number | null;
  fetchedAt: number;
}

/**
 * Checks presented keys. A validated key is trusted for `cacheTtlMs` (≤ 5 s): that is the bound
 * on how long a key revoked through another process keeps working. Revocations made through this
 * process take effect at once. Last-used times are written at most once a minute per key.
 */
export class KeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly touched = new Map<string, number>();
  private readonly envAdminHash: string | null;
  /** Bumped by every invalidation, so a lookup that started before one does not re-cache a revoked key. */
  private generation = 0;

  constructor(
    private readonly reader: Kysely<Database>,
    private readonly writer: Kysely<Database>,
    private readonly options: { secret: string; envAdminKey: string | null; cacheTtlMs: number; clock: Clock; onTouchError?: (error: unknown) => void },
  ) {
    this.envAdminHash = options.envAdminKey === null ? null : hashApiKey(options.envAdminKey, options.secret);
  }

  async authenticate(presented: string): Promise<Principal> {
    const { clock, cacheTtlMs } = this.options;
    // One keyed hash per request serves both checks: the constant-time comparison with
    // ADMIN_API_KEY (whose hash is computed once) and the lookup of stored keys.
    const hash = hashApiKey(presented, this.options.secret);
    if (this.envAdminHash !== null && hashesEqual(hash, this.envAdminHash)) {
      return { keyId: ENV_ADMIN_KEY_ID, role: 'admin', username: 'admin', name: 'ADMIN_API_KEY', expiresAt: null };
    }
    if (!isWellFormedApiKey(presented)) throw new PerchError('invalid_api_key', 'The API key is not valid.');
    const now = clock.now();
    let entry = this.cache.get(hash);
    if (entry === undefined || now - entry.fetchedAt >= cacheTtlMs) {
      const generation = this.generation;
      entry = await this.lookup(hash, now);
      if (this.cache.size >= 10_000) this.cache.clear();
      if (generation === this.generation) this.cache.set(hash, entry);
    }
    if (entry.principal instanceof PerchError) throw entry.principal;
    if (entry.expiresAt !== null && entry.expiresAt <= now) throw new PerchError('api_key_expired', 'The API key has expired.');
    this.touch(entry.principal.keyId, now);
    return entry.principal;
  }

  /** Forget a key at once (after a revocation through this process). */
  invalidate(keyId: string): void {
    this.generation += 1;
    for (const [hash, entry] of this.cache) {
      if (!(entry.principal instanceof PerchError) && entry.principal.keyId === keyId) this.cache.delete(hash);
    }
  }

  private async lookup(hash: string, now: number): Promise<CacheEntry> {
    const row = await findApiKeyByHash(this.reader, hash);
    if (!row) return { principal: new PerchError('invalid_api_key', 'The API key is not valid.'), expiresAt: null, fetchedAt: now };
    if (row.revoked_at !== null) return { principal: new PerchError('api_key_revoked', 'The API key has been revoked.'), expiresAt: null, fetchedAt: now };
    const principal: Principal = {
      keyId: row.id,
      role: row.role as Role,
      username: row.username,
      name: row.name,
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
    };
    return { principal, expiresAt: row.expires_at, fetchedAt: now };
  }

  private touch(keyId: string, now: number): void {
    const last = this.touched.get(keyId);
    if (last !== undefined && now - last < 60_000) return;
    this.touched.set(keyId, now);
    touchApiKey(this.writer, keyId, now, 60_000).catch((error: unknown) => this.options.onTouchError?.(error));
  }
}
