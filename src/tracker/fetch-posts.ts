// New posts for the accounts whose post count moved since their timeline was last read. Post reads
// are the scarcest budget: the batch reserves once, before reading, the most its timelines can bill
// (on X: the posts the count moved by, at least X's smallest page; elsewhere a full page),
// above what today's profile checks need; the accounts the grant does not cover, and any read that
// would have to wait for the rate limit, are skipped: their post count stays unseen and the next
// check tries again. The reservation is settled with what the platform really returned.
import type { PlatformPost } from '../platforms/types.ts';
import { PlatformError } from '../platforms/types.ts';
import type { TrackerContext } from './context.ts';
import { GatePacer } from './gate-pacer.ts';
import { usersLeftToday } from './profiles-first.ts';

/** X asks for at least 5 posts a page. */
const SMALLEST_PAGE = 5;

export interface PostsWanted {
  accountId: number;
  platformUserId: string;
  sinceId: string | null;
  /** How far the post count moved since the last read (since 0 before the first). */
  moved: number;
}

/** Posts per account id, newest first; accounts whose read was skipped or failed are absent. */
export async function fetchNewPosts(
  ctx: TrackerContext,
  wanted: readonly PostsWanted[],
): Promise<Map<number, PlatformPost[]>> {
  const { lane, metrics, settings, signal, logger } = ctx;
  const platform = lane.client.platform;
  const fetched = new Map<number, PlatformPost[]>();
  if (wanted.length === 0) return fetched;
  // Only where reads are billed: a free platform's feed may mix in reposts the count does not move by.
  const metered = lane.spend.meters.length > 0;
  const limitOf = (item: PostsWanted) =>
    !metered ? settings.postsPerFetch : Math.min(settings.postsPerFetch, Math.max(SMALLEST_PAGE, item.moved));
  const total = wanted.reduce((sum, item) => sum + limitOf(item), 0);
  const reservation = await lane.spend.reserve('posts', total, { keepUsers: await usersLeftToday(ctx) });
  // The accounts the grant covers, in claim order.
  const covered: PostsWanted[] = [];
  for (let left = reservation.granted, i = 0; i < wanted.length && limitOf(wanted[i]!) <= left; i += 1) {
    covered.push(wanted[i]!);
    left -= limitOf(wanted[i]!);
  }
  let billed = 0;
  let next = 0;
  let skipRest = false;
  /** One timeline read, every page past the gate; returns the resources read (X bills them). */
  const readTimeline = async (item: PostsWanted): Promise<number> => {
    const pacer = new GatePacer(lane.gates.posts, null, signal);
    let result;
    try {
      result = await lane.client.fetchPosts(item.platformUserId, item.sinceId, limitOf(item), { signal, pacer });
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
  const worker = async () => {
    while (next < covered.length && !signal.aborted && !skipRest) {
      const item = covered[next++];
      if (!item) break;
      // Read first, then add: `billed += await …` would add to the total as it was before the await.
      const read = await readTimeline(item);
      billed += read;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(settings.postFetchesInFlight, covered.length) }, worker));
  } finally {
    // Whatever happened, the reservation is settled with what was really read.
    await lane.spend.settle(reservation, billed);
  }
  return fetched;
}
