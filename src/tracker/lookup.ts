// One lookup for a batch, within the platform's limits: every request it sends passes the rate gate
// (X's 400 splitting and Bluesky's per-actor fallbacks included), 5xx/network failures are retried
// with capped exponential backoff and full jitter, and a 429 stops it.
import { backoffDelay } from '../domain/tracking-rules.ts';
import type { Ticket } from '../limits/rate-gate.ts';
import { PlatformError, type CallResult, type Endpoint, type LookupOutcome } from '../platforms/types.ts';
import type { TrackerContext } from './context.ts';
import { GatePacer } from './gate-pacer.ts';

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
export async function lookupBatch(
  ctx: TrackerContext,
  keys: readonly string[],
  resolved: boolean,
  first: Ticket,
): Promise<LookupResult> {
  const { lane, metrics, signal } = ctx;
  const platform = lane.client.platform;
  const endpoint: Endpoint = resolved ? 'lookup_by_id' : 'lookup_by_name';
  const gate = lane.gates[endpoint];
  let reads = 0;
  for (let attempt = 0; ; attempt += 1) {
    // A retry goes only if the window has room now (the pacer does not wait for it to reopen).
    const pacer = new GatePacer(gate, attempt === 0 ? first : null, signal);
    let result: CallResult<Map<string, LookupOutcome>>;
    try {
      const call = { signal, pacer };
      result = resolved ? await lane.client.lookupByIds(keys, call) : await lane.client.lookupByUsernames(keys, call);
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      reads += error.reads ?? 0;
      metrics.platformRequest(platform, endpoint, error.kind);
      const retryable = error.kind === 'unavailable' || error.kind === 'bad_response';
      if (!retryable || attempt + 1 >= LOOKUP_ATTEMPTS || signal.aborted) return { value: error, reads };
      await ctx.clock.sleep(backoffDelay(attempt, RETRY_BASE_MS, RETRY_CAP_MS, ctx.random), signal);
      continue;
    } finally {
      await pacer.finish();
    }
    metrics.platformRequest(platform, endpoint, 'ok');
    return { value: result.value, reads: reads + result.reads };
  }
}
