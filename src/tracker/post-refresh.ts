// Post metrics that stay true: at each check, the metrics of the accounts' recent posts (inside
// POST_REFRESH_WINDOW, the newest per account) are read again in batched post lookups (X 100 ids,
// Bluesky 25 uris a request), each request past the rate gate. On X a refresh spends the budgets
// only for posts not read yet this UTC day (X bills a post once a day), and only what is left above
// the reads the day's remaining profile checks need (profiles-first.ts): profiles and first checks
// come first. What cannot go now (no room in the window or the budget) waits for the next check.
import type { Post } from '../domain/post.ts';
import { recordObservation } from '../domain/post-history.ts';
import { refreshCandidates } from '../storage/posts-repo.ts';
import { utcDay } from '../domain/spend.ts';
import { PlatformError, type PostLookupOutcome } from '../platforms/types.ts';
import type { TrackerContext } from './context.ts';
import { GatePacer } from './gate-pacer.ts';
import { usersLeftToday } from './profiles-first.ts';

export interface RefreshRead {
  /** The stored posts that were candidates (with the metrics they had). */
  candidates: Post[];
  /** What the platform said of each post asked; posts not asked (no room) are absent. */
  outcomes: Map<string, PostLookupOutcome>;
}

/** Reads again the recent posts of `accountIds` (accounts found by this check, not protected). */
export async function readRefreshes(ctx: TrackerContext, accountIds: readonly number[]): Promise<RefreshRead> {
  const { lane, settings, clock, signal, metrics, logger } = ctx;
  const outcomes = new Map<string, PostLookupOutcome>();
  const now = clock.now();
  const candidates = await refreshCandidates(
    ctx.store.reader,
    accountIds,
    now,
    settings.postRefreshWindowMs,
    settings.postsRefreshedPerAccount,
  );
  // The same post may be stored under two accounts (a Bluesky repost carries the original's uri).
  const readToday = new Map<string, boolean>();
  for (const post of candidates)
    readToday.set(post.id, (readToday.get(post.id) ?? true) && utcDay(post.metricsObservedAt) === utcDay(now));
  const ids = [...readToday.keys()];
  const platform = lane.client.platform;
  for (let i = 0; i < ids.length && !signal.aborted; i += lane.client.postBatchSize) {
    const batch = ids.slice(i, i + lane.client.postBatchSize);
    const billable = batch.filter((id) => !readToday.get(id)).length;
    const reservation = await lane.spend.reserve('posts', billable, {
      keepUsers: billable === 0 ? 0 : await usersLeftToday(ctx),
      whole: true,
    });
    if (billable > 0 && reservation.granted === 0) break;
    const pacer = new GatePacer(lane.gates.post_lookup, null, signal);
    let billed = 0;
    try {
      const result = await lane.client.lookupPosts(batch, { signal, pacer });
      for (const [id, outcome] of result.value) outcomes.set(id, outcome);
      billed = batch.filter((id) => !readToday.get(id) && result.value.get(id)?.kind === 'found').length;
      metrics.platformRequest(platform, 'post_lookup', 'ok');
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      metrics.platformRequest(platform, 'post_lookup', error.kind);
      logger.debug({ platform, kind: error.kind }, 'post refresh failed; tried again at the next check');
      billed = Math.min(billable, error.reads ?? 0);
      break;
    } finally {
      await pacer.finish();
      await lane.spend.settle(reservation, billed);
    }
  }
  return { candidates, outcomes };
}

/**
 * The candidates the refresh reached, per account, as they are to be stored: current metrics and
 * one more history sample for a post found, `deleted` or `hidden` (keeping its last numbers and
 * the time it was first found so) for one the platform no longer shows. Posts it could not tell
 * about (not asked, or an unclassified error) keep their row unchanged and are left out.
 */
export function refreshedPosts(read: RefreshRead, now: number, toleranceMs: number): Map<number, Post[]> {
  const byAccount = new Map<number, Post[]>();
  for (const post of read.candidates) {
    const outcome = read.outcomes.get(post.id);
    if (!outcome || outcome.kind === 'unknown') continue;
    let updated: Post;
    if (outcome.kind === 'found') {
      const { likes, reposts, replies, quotes } = outcome.post;
      const history = recordObservation(
        post.metricsHistory,
        post.createdAt,
        now,
        { likes, reposts, replies, quotes },
        toleranceMs,
      );
      updated = {
        ...post,
        likes,
        reposts,
        replies,
        quotes,
        metricsObservedAt: now,
        status: 'live',
        statusAt: null,
        metricsHistory: history,
      };
    } else {
      updated = { ...post, status: outcome.kind, statusAt: post.status === outcome.kind ? post.statusAt : now };
    }
    const list = byAccount.get(post.accountId) ?? [];
    list.push(updated);
    byAccount.set(post.accountId, list);
  }
  return byAccount;
}
