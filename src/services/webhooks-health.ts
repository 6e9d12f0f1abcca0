// The `webhooks` check of /api/health: warn when perch disabled an endpoint, or when a delivery
// has been due for long (no process delivers, or they cannot keep up). Read from the store.
import { queueState } from '../storage/deliveries-repo.ts';
import type { Store } from '../storage/store.ts';
import { listDisabledByPerch } from '../storage/webhooks-repo.ts';
import type { Clock } from '../clock.ts';

/** A delivery due longer than this makes health warn. */
export const QUEUE_WARN_AFTER_MS = 5 * 60_000;
/** Probes may come many times a second: the figures are reused this long. */
const TTL_MS = 5_000;

export interface WebhooksHealth {
  status: 'pass' | 'warn';
  pending: number;
  oldestDueSeconds: number;
  disabled: number;
  notes?: string[];
}

export function webhooksHealth(store: Store, clock: Clock): () => Promise<WebhooksHealth> {
  let cached: { at: number; value: WebhooksHealth } | null = null;
  return async () => {
    const now = clock.now();
    if (cached && now - cached.at < TTL_MS) return cached.value;
    const [queue, disabled] = await Promise.all([queueState(store.reader), listDisabledByPerch(store.reader)]);
    const overdueMs = queue.oldestDueAt === null ? 0 : Math.max(0, now - queue.oldestDueAt);
    const notes: string[] = [];
    if (disabled.length > 0)
      notes.push(
        `${disabled.length} webhook endpoint(s) disabled: ${disabled.map((d) => `${d.id} (${d.reason})`).join(', ')}`,
      );
    if (overdueMs > QUEUE_WARN_AFTER_MS)
      notes.push(
        `a webhook delivery has been due for ${Math.round(overdueMs / 1000)} s: is a perch serve or perch worker running?`,
      );
    const value: WebhooksHealth = {
      status: notes.length > 0 ? 'warn' : 'pass',
      pending: queue.pending,
      oldestDueSeconds: Math.round(overdueMs / 1000),
      disabled: disabled.length,
      ...(notes.length > 0 ? { notes } : {}),
    };
    cached = { at: now, value };
    return value;
  };
}
