// Checking a presented API key as one use case: the check (key-authenticator.ts) and, when the key
// is refused, the failure counted against the client (limits/failure-throttle.ts). The API's
// authentication and the dashboard's sign-in both call it, so a bad key costs the same either way.
import type { Clock } from '../clock.ts';
import type { FailureThrottle } from '../limits/failure-throttle.ts';
import type { KeyAuthenticator, KeyCheck, Principal } from './key-authenticator.ts';

export interface AuthDeps {
  authenticator: KeyAuthenticator;
  throttle: FailureThrottle;
  clock: Clock;
}

/** Why a key is refused. */
export type KeyRefusal = Extract<KeyCheck, { ok: false }>['reason'];

/**
 * The caller, or why the key is refused; `retryAfter` > 0 when the client has failed too often
 * this minute (the refusal's reason is then withheld from it: 429, not 401).
 */
export type Authentication = { ok: true; principal: Principal } | { ok: false; reason: KeyRefusal; retryAfter: number };

/**
 * The caller, when `presented` is a key this process checked within its cache's TTL; null otherwise
 * (authenticate() then asks the store, and counts a refusal). Answers without a promise.
 */
export function authenticateCached(auth: AuthDeps, presented: string): Principal | null {
  const checked = auth.authenticator.checkCached(presented);
  return checked?.ok === true ? checked.principal : null;
}

/**
 * Checks `presented` for the client (`client()`: see limits/client-address.ts); only a refusal is
 * counted, and only a refusal needs the client's address.
 */
export async function authenticate(auth: AuthDeps, presented: string, client: () => string): Promise<Authentication> {
  const checked = await auth.authenticator.check(presented);
  if (checked.ok) return checked;
  // Only failures are throttled: a valid key is served whatever others did from its address.
  const retryAfter = await auth.throttle.recordFailure(client(), auth.clock.now());
  return { ok: false, reason: checked.reason, retryAfter };
}
