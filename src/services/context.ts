// What the use cases are given by the composer. The HTTP layer passes these through untouched: it
// holds the store as an opaque handle and never calls it (only services/ call storage/).
import type { Config } from '../config.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';

export type { Store };

/** Enough for the account use cases: the store, the time, and the settings they read. */
export interface ServiceDeps {
  store: Store;
  clock: Clock;
  config: Pick<Config, 'defaultPlatform' | 'trackIntervalMs'>;
}
