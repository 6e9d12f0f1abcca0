// One lookup request for a batch, within the platform's limits: retries 5xx/network failures with
// capped exponential backoff and full jitter, and stops at a 429.
import { backoffDelay } from '../domain/tracking-rules.ts';
import type { Ticket } from '../limits/rate-gate.ts';
import { PlatformError, type Endpoint, type LookupOutcome } from '../platforms/types.ts';
import type { TrackerContext } from './context.ts';
import { callThroughGate } from './gated-call.ts';

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
 * the gate (it acquires before claiming, so a lease never waits on a rate limit); a retry goes only
 * if the window has room right now, otherwise the batch is given back as rate limited. Resolves to
 * the outcomes, or to the PlatformError that ended the attempts.
 */
export async function lookupBatch(ctx: TrackerContext, keys: readonly string[], resolved: boolean, first: Ticket): Promise<LookupResult> {
  const { lane, signal } = ctx;
  const endpoint: Endpoint = resolved ? 'lookup_by_id' : 'lookup_by_name';
  let reads = 0;
  for (let attempt = 0; ; attempt += 1) {
    const ticket = attempt === 0 ? first : await lane.gates[endpoint].tryAcquire();
    if (ticket === null) return { value: new PlatformError('rate_limited', 'no room left in the rate-limit window for a retry'), reads };
    const result = await callThroughGate(ctx, endpoint, ticket, () => (resolved ? lane.client.lookupByIds(keys, signal) : lane.client.lookupByUsernames(keys, signal)));
    if (!(result instanceof PlatformError)) return { value: result.value, reads: reads + result.reads };
    reads += result.reads ?? 0;
    const retryable = result.kind === 'unavailable' || result.kind === 'bad_response';
    if (!retryable || attempt + 1 >= LOOKUP_ATTEMPTS || signal.aborted) return { value: result, reads };
    await ctx.clock.sleep(backoffDelay(attempt, RETRY_BASE_MS, RETRY_CAP_MS, ctx.random), signal);
  }
}
