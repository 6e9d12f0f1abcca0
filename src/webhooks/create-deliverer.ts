// Builds the webhook deliverer from the configuration (run by `perch serve` and `perch worker`).
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { webhookSealKey } from '../domain/webhooks.ts';
import type { Store } from '../storage/store.ts';
import { systemClock, type SleepingClock } from '../clock.ts';
import type { DeliveryMetrics } from './deliver-one.ts';
import { Deliverer } from './deliverer.ts';

export const NO_DELIVERY_METRICS: DeliveryMetrics = { attempt: () => {} };

export function createDeliverer(
  config: Config,
  store: Store,
  logger: Logger,
  keyHashSecret: string,
  options: { clock?: SleepingClock; metrics?: DeliveryMetrics; pollMs?: number } = {},
): Deliverer {
  return new Deliverer({
    store,
    clock: options.clock ?? systemClock,
    settings: {
      timeoutMs: config.webhookTimeoutMs,
      retryScheduleMs: config.webhookRetryScheduleMs,
      allowPrivate: config.webhookAllowPrivate,
      sealKey: webhookSealKey(keyHashSecret),
    },
    metrics: options.metrics ?? NO_DELIVERY_METRICS,
    logger: logger.child({ component: 'webhooks' }),
    random: Math.random,
    concurrency: config.webhookConcurrency,
    pollMs: options.pollMs,
  });
}
