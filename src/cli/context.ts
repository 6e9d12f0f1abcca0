// What a store-backed sub-command needs: the configuration, the open store and the key secret.
import type { Config } from '../config.ts';
import { resolveKeyHashSecret } from '../storage/key-secret.ts';
import { openStore, type Store } from '../storage/store.ts';
import { loadConfig } from './load-config.ts';

export interface StoreContext {
  config: Config;
  store: Store;
}

/** Runs `work` against the configured store (migrated first, as a server would) and always closes it. */
export async function withStore<T>(work: (context: StoreContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config.databaseUrl, { poolSize: 2 });
  try {
    return await work({ config, store });
  } finally {
    await store.close();
  }
}

/** The secret API keys are hashed under: the same one the server uses, so CLI-made keys work there. */
export function keySecretOf(config: Config): string {
  return resolveKeyHashSecret(config.keyHashSecret, config.dataDir);
}
