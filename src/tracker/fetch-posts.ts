// New posts for the accounts whose post count moved since their timeline was last read. Timeline
// reads are the scarcest budget, so a read that would have to wait for the rate limit (or exceed
// the daily budget) is skipped: the post count stays unseen and the next check tries again.
import type { PlatformPost } from '../platforms/types.ts';
import { PlatformError } from '../platforms/types.ts';
import type { TrackerContext } from './context.ts';
import type { Ticket } from '../limits/rate-gate.ts';

export interface PostsWanted {
  accountId: number;
  platformUserId: string;
  sinceId: string | null;
}

/** Posts per account id, newest first; accounts whose read was skipped or failed are absent. */
export async function fetchNewPosts(ctx: TrackerContext, wanted: readonly PostsWanted[]): Promise<Map<number, PlatformPost[]>> {
  const { lane, metrics, settings, signal, logger } = ctx;
  const platform = lane.client.platform;
  const gate = lane.gates.posts;
  const fetched = new Map<number, PlatformPost[]>();
  let next = 0;
  let skipRest = false;
  const worker = async () => {
    while (next < wanted.length && !signal.aborted && !skipRest) {
      const item = wanted[next++];
      if (!item) break;
      const reservation = lane.budget ? await lane.budget.reserve(settings.postsPerFetch) : null;
      let read = 0;
      try {
        const ticket = reservation?.granted === 0 ? null : await gate.acquire(signal, { windowWait: false });
        if (ticket === null) {
          skipRest = true;
          return;
        }
        read = await readTimeline(ticket, item, reservation?.granted ?? settings.postsPerFetch);
      } finally {
        // Whatever happened, the reservation is settled with what was really read.
        if (reservation) await lane.budget?.settle(reservation, read);
      }
    }
  };
  /** One timeline read on a ticket of the gate; returns the resources read (X bills them). */
  const readTimeline = async (ticket: Ticket, item: PostsWanted, limit: number): Promise<number> => {
    let result;
    try {
      result = await lane.client.fetchPosts(item.platformUserId, item.sinceId, limit, signal);
    } catch (error) {
      if (!(error instanceof PlatformError)) {
        await gate.cancel(ticket);
        throw error;
      }
      await gate.settle(ticket, error.rateLimit, error.kind === 'rate_limited' ? error.retryAt : null);
      metrics.platformRequest(platform, 'posts', error.kind);
      logger.debug({ platform, account: item.accountId, kind: error.kind }, 'timeline read failed; retried at the next check');
      return error.reads ?? 0;
    }
    await gate.settle(ticket, result.rateLimit);
    metrics.platformRequest(platform, 'posts', 'ok');
    fetched.set(item.accountId, result.value);
    return result.reads;
  };
  await Promise.all(Array.from({ length: Math.min(settings.postFetchesInFlight, wanted.length) }, worker));
  return fetched;
}
