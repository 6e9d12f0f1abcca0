// New posts for the accounts whose post count moved since their timeline was last read. Timeline
// reads are the scarcest budget, so a read that would have to wait for the rate limit (or exceed
// the daily budget) is skipped: the post count stays unseen and the next check tries again.
import type { PlatformPost } from '../platforms/types.ts';
import { PlatformError } from '../platforms/types.ts';
import type { TrackerContext } from './context.ts';
import { GatePacer } from './gate-pacer.ts';

export interface PostsWanted {
  accountId: number;
  platformUserId: string;
  sinceId: string | null;
}

/** Posts per account id, newest first; accounts whose read was skipped or failed are absent. */
export async function fetchNewPosts(
  ctx: TrackerContext,
  wanted: readonly PostsWanted[],
): Promise<Map<number, PlatformPost[]>> {
  const { lane, metrics, settings, signal, logger } = ctx;
  const platform = lane.client.platform;
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
        if (reservation?.granted === 0) {
          skipRest = true;
          return;
        }
        read = await readTimeline(item, reservation?.granted ?? settings.postsPerFetch);
      } finally {
        // Whatever happened, the reservation is settled with what was really read.
        if (reservation) await lane.budget?.settle(reservation, read);
      }
    }
  };
  /** One timeline read, every page past the gate; returns the resources read (X bills them). */
  const readTimeline = async (item: PostsWanted, limit: number): Promise<number> => {
    const pacer = new GatePacer(lane.gates.posts, null, signal);
    let result;
    try {
      result = await lane.client.fetchPosts(item.platformUserId, item.sinceId, limit, { signal, pacer });
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      // No room in the window (or a 429): the rest of the batch waits for its next check too.
      if (error.kind === 'rate_limited') skipRest = true;
      metrics.platformRequest(platform, 'posts', error.kind);
      logger.debug(
        { platform, account: item.accountId, kind: error.kind },
        'timeline read failed; retried at the next check',
      );
      return error.reads ?? 0;
    } finally {
      await pacer.finish();
    }
    metrics.platformRequest(platform, 'posts', 'ok');
    fetched.set(item.accountId, result.value);
    return result.reads;
  };
  await Promise.all(Array.from({ length: Math.min(settings.postFetchesInFlight, wanted.length) }, worker));
  return fetched;
}
