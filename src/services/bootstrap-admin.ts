// First start without ADMIN_API_KEY: create one admin key so the new user can do anything at all.
import type { Config } from '../config.ts';
import { countActiveAdminKeys } from '../storage/api-keys-repo.ts';
import type { Store } from '../storage/store.ts';
import { createApiKey } from './api-keys.ts';
import type { Clock } from '../clock.ts';

/** Returns the new key's plaintext (to print once), or null when an admin key already exists. */
export async function ensureAdminKey(store: Store, config: Config, secret: string, clock: Clock): Promise<string | null> {
  if (config.adminApiKey !== null) return null;
  // Several processes may start at once on an empty PostgreSQL: one of them creates the key.
  return store.db.transaction().execute(async (trx) => {
    await store.caps.serialize(trx, 'admin_keys');
    if ((await countActiveAdminKeys(trx, clock.now())) > 0) return null;
    const created = await createApiKey(trx, secret, clock, { role: 'admin', username: 'admin', name: 'first-run key', actor: null });
    return created.apiKey;
  });
}
