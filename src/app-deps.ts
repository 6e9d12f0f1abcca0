// What the composer (compose.ts) hands the app: the services it built once, and the parts of the
// process the routes look at. app.ts and ui/routes.ts give each route file only what it uses, so
// no route file imports this one.
import type { Registry } from 'prom-client';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { TrackerView } from './domain/tracker-status.ts';
import type { Store } from './services/context.ts';
import type { KeyAuthenticator } from './services/api-keys.ts';
import type { Services } from './services/services.ts';
import type { DelivererStatus } from './webhooks/deliverer.ts';

/** What a process runs: both (`perch serve`), the API only, or the tracker and deliveries only. */
export type Role = 'serve' | 'api' | 'worker';

/** What the API needs of a webhook deliverer in the same process. */
export interface DelivererView {
  notify(): void;
  status(): DelivererStatus;
}

export interface AppDeps {
  config: Config;
  services: Services;
  /** Held as an opaque handle for the reads that take it whole (events, health, spend) and error mapping. */
  store: Store;
  clock: Clock;
  /** This process's key checks (the keys and auth services hold it too). */
  authenticator: KeyAuthenticator;
  /** The secret under which API keys are hashed. */
  keyHashSecret: string;
  /** The tracker running in this process (`perch serve`), or null (`perch api`, TRACKER=off). */
  tracker: TrackerView | null;
  /** The webhook deliverer running in this process (`perch serve`), or null: woken when an event is queued here. */
  deliverer: DelivererView | null;
  /** Prometheus registry served at /metrics. */
  metrics: Registry;
  /** What this process runs, for /api/health. */
  role: Role;
  version: string;
}
