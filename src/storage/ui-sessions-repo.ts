// Dashboard sessions at rest: looked up by the hash of the cookie, together with the state of the
// API key they were opened with, so a revoked or expired key ends its sessions at once.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface SessionRow {
  tokenHash: string;
  keyId: string;
  role: string;
  username: string;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
  /** For a session of ADMIN_API_KEY, the fingerprint of the key that opened it. */
  keyFingerprint: string | null;
}

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db
    .insertInto('ui_sessions')
    .values({
      token_hash: row.tokenHash,
      key_id: row.keyId,
      role: row.role,
      username: row.username,
      csrf_token: row.csrfToken,
      created_at: row.createdAt,
      expires_at: row.expiresAt,
      key_fingerprint: row.keyFingerprint,
    })
    .execute();
}

/**
 * The session if it has not expired and its key is still good. `unstored` names the one key with
 * no row (ADMIN_API_KEY) and the fingerprint of its current value: it cannot be revoked, only
 * changed or removed from the configuration, and either ends the sessions it opened.
 */
export async function findLiveSession(
  db: Db,
  tokenHash: string,
  now: number,
  unstored: { keyId: string; fingerprint: string } | null,
): Promise<SessionRow | null> {
  const row = await db
    .selectFrom('ui_sessions as s')
    .leftJoin('api_keys as k', 'k.id', 's.key_id')
    .select([
      's.token_hash',
      's.key_id',
      's.role',
      's.username',
      's.csrf_token',
      's.created_at',
      's.expires_at',
      's.key_fingerprint',
      'k.id as stored_id',
      'k.revoked_at',
      'k.expires_at as key_expires_at',
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return null;
  if (row.stored_id === null) {
    if (unstored === null || row.key_id !== unstored.keyId || row.key_fingerprint !== unstored.fingerprint) return null;
  } else if (row.revoked_at !== null || (row.key_expires_at !== null && Number(row.key_expires_at) <= now)) {
    return null;
  }
  return {
    tokenHash: row.token_hash,
    keyId: row.key_id,
    role: row.role,
    username: row.username,
    csrfToken: row.csrf_token,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    keyFingerprint: row.key_fingerprint,
  };
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('ui_sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteExpiredSessions(db: Db, now: number): Promise<void> {
  await db.deleteFrom('ui_sessions').where('expires_at', '<=', now).execute();
}

/** Ends every session of a key (its revocation). */
export async function deleteSessionsOfKey(db: Db, keyId: string): Promise<void> {
  await db.deleteFrom('ui_sessions').where('key_id', '=', keyId).execute();
}
