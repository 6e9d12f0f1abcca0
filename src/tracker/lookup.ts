// One lookup request for a batch, within the platform's limits: waits for the rate gate, retries
// 5xx/network failures with capped exponential backoff and full jitter, and stops at a 429.
import { backoffDelay } from '../domain/tracking-rules.ts';
import { PlatformError, type CallResult, type Endpoint, type LookupOutcome } from '../platforms/types.ts';
import type { TrackerContext } from './context.ts';

export const LOOKUP_ATTEMPTS = 3;
const RETRY_BASE_MS = 1_000;
const RETRY_CAP_MS = 15_000;

/**
 * Looks the batch up by platform id (`resolved`) or by name. `reserved` says the caller already
 * holds the gate for the first attempt (it acquires before claiming, so a lease never waits on a
 * rate limit). Resolves to the outcomes, or to the PlatformError that ended the attempts.
 */
export async function lookupBatch(ctx: TrackerContext, keys: readonly string[], resolved: boolean, reserved: boolean): Promise<Map<string, LookupOutcome> | PlatformError> {
  const { lane, metrics, signal } = ctx;
  const platform = lane.client.platform;
  const endpoint: Endpoint = resolved ? 'lookup_by_id' : 'lookup_by_name';
  let holding = reserved;
  for (let attempt = 0; ; attempt += 1) {
    if (!holding) {
      const waitedBefore = lane.gates.lookup.waitedMs;
      if (!(await lane.gates.lookup.acquire(signal))) return new PlatformError('unavailable', 'tracker stopping');
      metrics.rateLimitWait(platform, lane.gates.lookup.waitedMs - waitedBefore);
    }
    holding = false;
    let result: CallResult<Map<string, LookupOutcome>>;
    try {
      result = resolved ? await lane.client.lookupByIds(keys, signal) : await lane.client.lookupByUsernames(keys, signal);
    } catch (error) {
      if (!(error instanceof PlatformError)) {
        lane.gates.lookup.cancel();
        throw error;
      }
      lane.gates.lookup.settle(error.rateLimit, error.kind === 'rate_limited' ? error.retryAt : null);
      metrics.platformRequest(platform, endpoint, error.kind);
      const retryable = error.kind === 'unavailable' || error.kind === 'bad_response';
      if (!retryable || attempt + 1 >= LOOKUP_ATTEMPTS || signal.aborted) return error;
      await ctx.clock.sleep(backoffDelay(attempt, RETRY_BASE_MS, RETRY_CAP_MS, ctx.random), signal);
      continue;
    }
    lane.gates.lookup.settle(result.rateLimit);
    metrics.platformRequest(platform, endpoint, 'ok');
    await lane.budget?.spend(result.reads);
    return result.value;
  }
}
