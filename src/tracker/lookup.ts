// One lookup request for a batch, within the platform's limits: waits for the rate gate, retries
// 5xx/network failures with capped exponential backoff and full jitter, and stops at a 429.
import { backoffDelay } from '../domain/tracking-rules.ts';
import { PlatformError, type CallResult, type Endpoint, type LookupOutcome } from '../platforms/types.ts';
import type { TrackerContext } from './context.ts';
import type { Ticket } from '../limits/rate-gate.ts';

export const LOOKUP_ATTEMPTS = 3;
const RETRY_BASE_MS = 1_000;
const RETRY_CAP_MS = 15_000;

export interface LookupResult {
  value: Map<string, LookupOutcome> | PlatformError;
  /** Resources the platform returned (and X billed), over every attempt. */
  reads: number;
}

/**
 * Looks the batch up by platform id (`resolved`) or by name. The caller already took `first` from
 * the gate (it acquires before claiming, so a lease never waits on a rate limit);
 * a retry goes only if the window has room right now, otherwise the batch is given back as rate
 * limited. Resolves to the outcomes, or to the PlatformError that ended the attempts.
 */
export async function lookupBatch(ctx: TrackerContext, keys: readonly string[], resolved: boolean, first: Ticket): Promise<LookupResult> {
  const { lane, metrics, signal } = ctx;
  const platform = lane.client.platform;
  const endpoint: Endpoint = resolved ? 'lookup_by_id' : 'lookup_by_name';
  const gate = lane.gates[endpoint];
  let reads = 0;
  for (let attempt = 0; ; attempt += 1) {
    const ticket = attempt === 0 ? first : await gate.tryAcquire();
    if (ticket === null) return { value: new PlatformError('rate_limited', 'no room left in the rate-limit window for a retry'), reads };
    let result: CallResult<Map<string, LookupOutcome>>;
    try {
      result = resolved ? await lane.client.lookupByIds(keys, signal) : await lane.client.lookupByUsernames(keys, signal);
    } catch (error) {
      if (!(error instanceof PlatformError)) {
        await gate.cancel(ticket);
        throw error;
      }
      reads += error.reads ?? 0;
      await gate.settle(ticket, error.rateLimit, error.kind === 'rate_limited' ? error.retryAt : null);
      metrics.platformRequest(platform, endpoint, error.kind);
      const retryable = error.kind === 'unavailable' || error.kind === 'bad_response';
      if (!retryable || attempt + 1 >= LOOKUP_ATTEMPTS || signal.aborted) return { value: error, reads };
      await ctx.clock.sleep(backoffDelay(attempt, RETRY_BASE_MS, RETRY_CAP_MS, ctx.random), signal);
      continue;
    }
    await gate.settle(ticket, result.rateLimit);
    metrics.platformRequest(platform, endpoint, 'ok');
    return { value: result.value, reads: reads + result.reads };
  }
}
