// First start without ADMIN_API_KEY: create one admin key so the new user can do anything at all.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PERCH_HOME, type Config } from '../config.ts';
import { countActiveAdminKeys } from '../storage/api-keys-repo.ts';
import type { Store } from '../storage/store.ts';
import { createApiKey } from './api-keys.ts';
import type { Clock } from '../clock.ts';

/** Returns the new key's plaintext (to print once), or null when an admin key already exists. */
export async function ensureAdminKey(
  store: Store,
  config: Config,
  secret: string,
  clock: Clock,
): Promise<string | null> {
  if (config.adminApiKey !== null) return null;
  // Several processes may start at once on an empty PostgreSQL: one of them creates the key.
  return store.db.transaction().execute(async (trx) => {
    await store.caps.serialize(trx, 'admin_keys');
    if ((await countActiveAdminKeys(trx, clock.now())) > 0) return null;
    const created = await createApiKey(trx, secret, clock, {
      role: 'admin',
      username: 'admin',
      name: 'first-run key',
      actor: null,
    });
    return created.apiKey;
  });
}

/** Where the key file goes: the SQLite store's folder, or `data/` in perch's folder on PostgreSQL. */
export function keyFileDir(config: Config): string {
  return config.dataDir ?? join(PERCH_HOME, 'data');
}

export interface KeyDelivery {
  /** The terminal the key may be shown on, or null when stdout is a pipe, a file or a log collector. */
  terminal: { write(text: string): unknown } | null;
  /** Folder for the key file when there is no terminal. */
  dir: string;
  log: { warn(fields: Record<string, unknown>, message: string): void };
}

/**
 * Hands the first admin key to its owner without putting it in a log: printed when stdout is a
 * terminal; otherwise written to `first-admin-key` in the data folder (owner-only, never
 * overwritten), and the log names the file, not the key.
 */
export function deliverFirstAdminKey(key: string, delivery: KeyDelivery): void {
  if (delivery.terminal !== null) {
    delivery.terminal.write(
      `\n  First start: an admin API key was created. It is shown only this once; keep it safe:\n\n    ${key}\n\n` +
        `  Use it in the x-api-key header. Set ADMIN_API_KEY, or create more keys with \`perch keys create\`.\n\n`,
    );
    return;
  }
  mkdirSync(delivery.dir, { recursive: true, mode: 0o700 });
  const file = join(delivery.dir, 'first-admin-key');
  // `wx`: an old key file is never replaced, so the file always holds the key it was made for.
  const written = (name: string) => writeFileSync(name, `${key}\n`, { mode: 0o600, flag: 'wx' });
  let path = file;
  try {
    written(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    path = `${file}-${Date.now()}`;
    written(path);
  }
  delivery.log.warn(
    { file: path },
    'first start: an admin API key was created and written to this file (owner-only); read it, then delete the file',
  );
}
