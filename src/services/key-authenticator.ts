// Checks presented API keys. The cache holds what a key turned out to be (valid, unknown, revoked),
// never an error object: http/auth.ts turns a refusal into a problem document at the edge.
import { hashApiKey, hashesEqual, isWellFormedApiKey } from '../domain/api-key-format.ts';
import type { Role } from '../domain/roles.ts';
import { findApiKeyByHash, touchApiKey } from '../storage/api-keys-repo.ts';
import type { Executor } from '../storage/store.ts';
import type { Clock } from '../clock.ts';

/** Who is calling: a stored key, or the bootstrap key from ADMIN_API_KEY. */
export interface Principal {
  keyId: string;
  role: Role;
  username: string;
  name: string | null;
  expiresAt: string | null;
}

export const ENV_ADMIN_KEY_ID = 'key_env_admin';

/** The outcome of checking a key: the caller, or why the key is refused. */
export type KeyCheck = { ok: true; principal: Principal } | { ok: false; reason: 'invalid' | 'revoked' | 'expired' };

/** What the store said about a key hash, as cached. */
type StoredKey =
  { status: 'valid'; principal: Principal; expiresAt: number | null } | { status: 'unknown' } | { status: 'revoked' };

interface CacheEntry {
  key: StoredKey;
  fetchedAt: number;
}

/** Keys that worked, least recently used first out. */
const MAX_CACHED = 10_000;
/**
 * Answers that a key is unknown, kept apart and briefly: anyone can present well-formed random
 * keys, and they must neither evict the keys that work nor cost a store lookup each.
 */
const MAX_REFUSED = 2_000;
const REFUSED_TTL_MS = 1_000;

const ENV_ADMIN: KeyCheck = {
  ok: true,
  principal: { keyId: ENV_ADMIN_KEY_ID, role: 'admin', username: 'admin', name: 'ADMIN_API_KEY', expiresAt: null },
};
const TOUCH_EVERY_MS = 60_000;

/**
 * A validated key is trusted for `cacheTtlMs` (≤ 5 s): that is the bound on how long a key revoked
 * through another process keeps working. Revocations made through this process take effect at
 * once. Last-used times are written at most once a minute per key.
 */
export class KeyAuthenticator {
  /** By the key as presented, in order of last use (a Map keeps insertion order: re-set on use). */
  private readonly cache = new Map<string, CacheEntry>();
  /** Unknown keys, by the key as presented, oldest first. */
  private readonly refused = new Map<string, number>();
  private sweptAt = 0;
  private readonly touched = new Map<string, number>();
  private readonly envAdminHash: string | null;
  /** Bumped by every invalidation, so a lookup that started before one does not re-cache a revoked key. */
  private generation = 0;
  /** Keys whose revocation through this process is being written. */
  private readonly revoking = new Set<string>();
  /** Told of every revocation through this process (open event streams end at once). */
  private readonly revokedListeners = new Set<(keyId: string) => void>();

  constructor(
    private readonly reader: Executor,
    private readonly writer: Executor,
    private readonly options: {
      secret: string;
      envAdminKey: string | null;
      cacheTtlMs: number;
      clock: Clock;
      onTouchError?: (error: unknown) => void;
      /** How many keys the cache holds (MAX_CACHED); tests make it small. */
      maxCached?: number;
    },
  ) {
    this.envAdminHash = options.envAdminKey === null ? null : hashApiKey(options.envAdminKey, options.secret);
  }

  /**
   * The answer for a key checked within the TTL, without waiting (null: the store must be asked,
   * through check()). The API's hottest requests carry such a key: no promise is made for them.
   */
  checkCached(presented: string): KeyCheck | null {
    const now = this.options.clock.now();
    const entry = this.cache.get(presented);
    if (entry === undefined || now - entry.fetchedAt >= this.options.cacheTtlMs) return null;
    // Used now: to the back of the eviction order.
    this.cache.delete(presented);
    this.cache.set(presented, entry);
    return this.verdict(entry.key, now);
  }

  async check(presented: string): Promise<KeyCheck> {
    const { clock, cacheTtlMs } = this.options;
    const now = clock.now();
    // A key checked within the TTL is found by its text: the keyed hash (an HMAC per request) is
    // computed only when the store has to be asked. Entries past the TTL are swept out (at most
    // once per TTL), so a key's text is not held in memory long after its last use.
    const cached = this.checkCached(presented);
    if (cached !== null) return cached;
    this.sweep(now);
    const refusedAt = this.refused.get(presented);
    if (refusedAt !== undefined && now - refusedAt < Math.min(cacheTtlMs, REFUSED_TTL_MS))
      return { ok: false, reason: 'invalid' };
    // One keyed hash serves both checks: the constant-time comparison with ADMIN_API_KEY (whose
    // hash is computed once) and the lookup of stored keys.
    const hash = hashApiKey(presented, this.options.secret);
    if (this.envAdminHash !== null && hashesEqual(hash, this.envAdminHash)) return ENV_ADMIN;
    if (!isWellFormedApiKey(presented)) return { ok: false, reason: 'invalid' };
    const generation = this.generation;
    const entry: CacheEntry = { key: await this.lookup(hash), fetchedAt: now };
    if (entry.key.status === 'unknown') {
      this.refused.delete(presented);
      if (this.refused.size >= MAX_REFUSED) this.dropOldest(this.refused);
      this.refused.set(presented, now);
    } else if (generation === this.generation) {
      this.cache.delete(presented);
      if (this.cache.size >= (this.options.maxCached ?? MAX_CACHED)) this.dropOldest(this.cache);
      this.cache.set(presented, entry);
    }
    return this.verdict(entry.key, now);
  }

  private verdict(key: StoredKey, now: number): KeyCheck {
    if (key.status === 'unknown') return { ok: false, reason: 'invalid' };
    if (key.status === 'revoked' || (key.status === 'valid' && this.revoking.has(key.principal.keyId)))
      return { ok: false, reason: 'revoked' };
    if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, reason: 'expired' };
    this.touch(key.principal.keyId, now);
    return { ok: true, principal: key.principal };
  }

  private dropOldest(map: Map<string, unknown>): void {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }

  private sweep(now: number): void {
    const { cacheTtlMs } = this.options;
    if (now - this.sweptAt < cacheTtlMs) return;
    this.sweptAt = now;
    for (const [presented, entry] of this.cache) if (now - entry.fetchedAt >= cacheTtlMs) this.cache.delete(presented);
    for (const [presented, at] of this.refused) if (now - at >= cacheTtlMs) this.refused.delete(presented);
  }

  /**
   * Refuses a key from now on, before its revocation is written (the write may wait behind an
   * import for SQLite's writer). Returns the undo for a revocation that failed.
   */
  beginRevocation(keyId: string): () => void {
    this.revoking.add(keyId);
    return () => this.revoking.delete(keyId);
  }

  /** Forget a key at once (after a revocation through this process). */
  invalidate(keyId: string): void {
    this.generation += 1;
    this.revoking.delete(keyId);
    for (const [hash, entry] of this.cache) {
      if (entry.key.status === 'valid' && entry.key.principal.keyId === keyId) this.cache.delete(hash);
    }
    for (const listener of this.revokedListeners) listener(keyId);
  }

  /** Calls `listener` with the id of every key revoked through this process; returns the undo. */
  onRevoked(listener: (keyId: string) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  private async lookup(hash: string): Promise<StoredKey> {
    const row = await findApiKeyByHash(this.reader, hash);
    if (!row) return { status: 'unknown' };
    if (row.revoked_at !== null) return { status: 'revoked' };
    const principal: Principal = {
      keyId: row.id,
      role: row.role as Role,
      username: row.username,
      name: row.name,
      expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
    };
    return { status: 'valid', principal, expiresAt: row.expires_at };
  }

  private touch(keyId: string, now: number): void {
    const last = this.touched.get(keyId);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    touchApiKey(this.writer, keyId, now, TOUCH_EVERY_MS).catch((error: unknown) => this.options.onTouchError?.(error));
  }
}
