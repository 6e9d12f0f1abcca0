// What the HTTP layer is given by its composer: everything it needs, nothing it creates itself.
import type { Config } from '../config.ts';
import type { KeyAuthenticator } from '../services/api-keys.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../services/context.ts';
import type { Registry } from 'prom-client';
import type { TrackerView } from '../domain/tracker-status.ts';
import type { DelivererStatus } from '../webhooks/deliverer.ts';
import type { FailureThrottle } from '../limits/failure-throttle.ts';

/** What the API needs of a webhook deliverer in the same process. */
export interface DelivererView {
  notify(): void;
  status(): DelivererStatus;
}

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  authenticator: KeyAuthenticator;
  throttle: FailureThrottle;
  /** The secret under which API keys are hashed. */
  keyHashSecret: string;
  /** Key that seals stored idempotent responses (derived from keyHashSecret). */
  sealKey: Buffer;
  /** The tracker running in this process (`perch serve`), or null (`perch api`, TRACKER=off). */
  tracker: TrackerView | null;
  /** The webhook deliverer running in this process (`perch serve`), or null: woken when an event is queued here. */
  deliverer: DelivererView | null;
  /** Prometheus registry served at /metrics. */
  metrics: Registry;
  /** What this process runs, for /api/health. */
  role: 'serve' | 'api' | 'worker';
  version: string;
}
