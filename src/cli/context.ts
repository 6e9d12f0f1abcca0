// What a store-backed sub-command needs: the configuration and the use cases on the open store.
import type { Config } from '../config.ts';
import { openCommandServices, type CommandServices } from '../services/services.ts';
import { loadConfig } from './load-config.ts';

export interface CommandContext {
  config: Config;
  services: CommandServices;
}

/** Runs `work` against the configured store (migrated first, as a server would) and always closes it. */
export async function withServices<T>(work: (context: CommandContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const { services, close } = await openCommandServices(config);
  try {
    return await work({ config, services });
  } finally {
    await close();
  }
}
