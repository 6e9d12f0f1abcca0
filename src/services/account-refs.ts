// Turning a name given in a request (username, @name, profile URL, DID) into the account it means,
// and the one way of saying that an account is not tracked.
import type { AccountRef } from '../domain/account.ts';
import { PerchError } from '../domain/errors.ts';
import type { Platform } from '../domain/platforms.ts';
import { parseAccountRef } from '../domain/usernames.ts';

/** An account reference together with the name as the caller wrote it (for messages). */
export interface NamedRef extends AccountRef {
  name: string;
}

/** Parses `raw` (on `platform` if given, else inferred with `defaultPlatform`), or fails with 400. */
export function accountRef(raw: string, platform: Platform | undefined, defaultPlatform: Platform): NamedRef {
  const ref = parseAccountRef(raw, platform ?? null, defaultPlatform);
  if (!ref.ok)
    throw new PerchError('invalid_username', `"${raw.slice(0, 100)}" is not a valid username: ${ref.reason}.`);
  return { platform: ref.platform, key: ref.key, name: raw };
}

export function notTracked(name: string): PerchError {
  return new PerchError('account_not_found', `No tracked account is named ${name.slice(0, 100)}.`);
}
