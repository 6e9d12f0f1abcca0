// Prometheus metrics of webhook deliveries: attempts by outcome and their latency in this process,
// and (read from the store when scraped) the queue's depth and how overdue its oldest delivery is.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import { queueState } from '../storage/deliveries-repo.ts';
import type { Store } from '../storage/store.ts';
import type { DeliveryMetrics } from './deliver-one.ts';

export function webhookMetrics(registry: Registry, store: Store, clock: Clock): DeliveryMetrics {
  const attempts = new Counter({
    name: 'perch_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed) in this process.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'perch_webhook_delivery_seconds',
    help: 'Time of one delivery attempt, until the answer or the timeout.',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // Both describe the whole deployment (read from the store): aggregate them with max, not sum.
  let cached: { at: number; value: Promise<{ pending: number; oldestDueAt: number | null }> } | null = null;
  const state = () => {
    const now = clock.now();
    if (!cached || now - cached.at > 1_000) cached = { at: now, value: queueState(store.reader) };
    return cached.value;
  };
  new Gauge({
    name: 'perch_webhook_queue_depth',
    help: 'Deliveries waiting to be sent (due now or scheduled for a retry) to enabled endpoints.',
    registers: [registry],
    async collect() {
      this.set((await state()).pending);
    },
  });
  new Gauge({
    name: 'perch_webhook_oldest_pending_seconds',
    help: 'How long the most overdue waiting delivery has been due (0 when none is overdue).',
    registers: [registry],
    async collect() {
      const { oldestDueAt } = await state();
      this.set(oldestDueAt === null ? 0 : Math.max(0, (clock.now() - oldestDueAt) / 1000));
    },
  });
  return {
    attempt: (outcome, seconds) => {
      attempts.inc({ outcome });
      latency.observe(seconds);
    },
  };
}
