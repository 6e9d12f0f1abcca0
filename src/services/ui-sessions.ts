// Dashboard sign-in as use cases: an API key is checked once and exchanged for a random session
// token (the cookie) with its own CSRF token; only the token's hash is stored. Every request looks
// the session up with its key's state, so revoking the key ends the session on every process.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Role } from '../domain/roles.ts';
import { deleteExpiredSessions, deleteSession, findLiveSession, insertSession } from '../storage/ui-sessions-repo.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';
import { authenticate, type AuthDeps, type Authentication } from './authenticate.ts';
import { ENV_ADMIN_KEY_ID } from './key-authenticator.ts';

export interface UiSession {
  keyId: string;
  role: Role;
  username: string;
  csrfToken: string;
  expiresAt: number;
}

export interface SessionDeps {
  store: Store;
  clock: Clock;
  /** Checks the key signing in, counting a refusal like the API's (authenticate.ts). */
  auth: AuthDeps;
  ttlMs: number;
  /**
   * The fingerprint of ADMIN_API_KEY (adminKeyFingerprint), or null when it is unset. Its sessions
   * hold while it is the same key: changing or removing it ends them.
   */
  envAdminFingerprint: string | null;
}

/** A keyed hash of ADMIN_API_KEY that names its value without revealing it (not the key's own hash). */
export function adminKeyFingerprint(adminApiKey: string, secret: string): string {
  return createHmac('sha256', secret).update(`perch-ui-session\0${adminApiKey}`).digest('base64url');
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');
const newToken = (): string => randomBytes(32).toString('base64url');

/** Checks the key of `client` and opens a session; the refusal otherwise (counted, as through the API). */
export async function signIn(
  deps: SessionDeps,
  presentedKey: string,
  client: string,
): Promise<{ ok: true; token: string; session: UiSession } | Extract<Authentication, { ok: false }>> {
  const checked = await authenticate(deps.auth, presentedKey.trim(), () => client);
  if (!checked.ok) return checked;
  const now = deps.clock.now();
  const token = newToken();
  const { principal } = checked;
  const keyExpiry = principal.expiresAt === null ? Infinity : Date.parse(principal.expiresAt);
  const session: UiSession = {
    keyId: principal.keyId,
    role: principal.role,
    username: principal.username,
    csrfToken: newToken(),
    expiresAt: Math.min(now + deps.ttlMs, keyExpiry),
  };
  await deps.store.db.transaction().execute(async (trx) => {
    await deleteExpiredSessions(trx, now);
    await insertSession(trx, {
      tokenHash: hashToken(token),
      ...session,
      createdAt: now,
      keyFingerprint: principal.keyId === ENV_ADMIN_KEY_ID ? deps.envAdminFingerprint : null,
    });
  });
  return { ok: true, token, session };
}

/** The live session a cookie names, or null (unknown, expired, or its key revoked or expired). */
export async function findSession(deps: SessionDeps, token: string): Promise<UiSession | null> {
  if (token.length < 20 || token.length > 100) return null;
  const row = await findLiveSession(
    deps.store.reader,
    hashToken(token),
    deps.clock.now(),
    deps.envAdminFingerprint === null ? null : { keyId: ENV_ADMIN_KEY_ID, fingerprint: deps.envAdminFingerprint },
  );
  if (!row) return null;
  return {
    keyId: row.keyId,
    role: row.role as Role,
    username: row.username,
    csrfToken: row.csrfToken,
    expiresAt: row.expiresAt,
  };
}

export async function signOut(deps: SessionDeps, token: string): Promise<void> {
  await deleteSession(deps.store.db, hashToken(token));
}

/**
 * The CSRF token as written into one page: a fresh random pad followed by the token XORed with it,
 * so no two pages carry the same bytes and compressed pages reveal nothing about it (BREACH).
 */
export function maskedCsrf(session: UiSession): string {
  const token = Buffer.from(session.csrfToken, 'base64url');
  const pad = randomBytes(token.length);
  return Buffer.concat([pad, Buffer.from(token.map((byte, i) => byte ^ (pad[i] ?? 0)))]).toString('base64url');
}

/** Whether a presented (masked) CSRF token is the session's, compared in constant time. */
export function csrfMatches(session: UiSession, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length > 200) return false;
  const expected = Buffer.from(session.csrfToken, 'base64url');
  const given = Buffer.from(presented, 'base64url');
  if (given.length !== expected.length * 2) return false;
  const token = Buffer.from(given.subarray(expected.length).map((byte, i) => byte ^ (given[i] ?? 0)));
  return timingSafeEqual(token, expected);
}
