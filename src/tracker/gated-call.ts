// One platform request on a ticket of its rate gate: the ticket is settled here, with what the
// answer said about the window (its headers, a 429's retry time), and the request is counted in
// the metrics. Every request the tracker sends goes through this function.
import { PlatformError, type CallResult, type Endpoint } from '../platforms/types.ts';
import type { Ticket } from '../limits/rate-gate.ts';
import type { TrackerContext } from './context.ts';

/**
 * Sends `call` on `ticket` and settles the ticket. Resolves to the call's result, or to the
 * PlatformError the platform answered with; anything else (a bug, an abort outside the client)
 * cancels the ticket, since the request may never have left, and is thrown.
 */
export async function callThroughGate<T>(ctx: Pick<TrackerContext, 'lane' | 'metrics'>, endpoint: Endpoint, ticket: Ticket, call: () => Promise<CallResult<T>>): Promise<CallResult<T> | PlatformError> {
  const { lane, metrics } = ctx;
  const gate = lane.gates[endpoint];
  let result: CallResult<T>;
  try {
    result = await call();
  } catch (error) {
    if (!(error instanceof PlatformError)) {
      await gate.cancel(ticket);
      throw error;
    }
    await gate.settle(ticket, error.rateLimit, error.kind === 'rate_limited' ? error.retryAt : null);
    metrics.platformRequest(lane.client.platform, endpoint, error.kind);
    return error;
  }
  await gate.settle(ticket, result.rateLimit);
  metrics.platformRequest(lane.client.platform, endpoint, 'ok');
  return result;
}
