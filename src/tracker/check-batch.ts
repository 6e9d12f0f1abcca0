// The tracker's unit of work: one claimed batch of a platform's accounts is looked up, its moved
// accounts' new posts are read, the metrics of recent posts are read again, and every account's
// result is written back under the lease, which is renewed while the batch works. A failed
// request fails the batch's accounts as a whole (they back off); one account's own error, even a
// thrown one, never touches the others.
import type { Ticket } from '../limits/rate-gate.ts';
import type { LookupOutcome, PlatformPost } from '../platforms/types.ts';
import { PlatformError } from '../platforms/types.ts';
import { releaseLeases, type ClaimedAccount } from '../storage/leases-repo.ts';
import { recentPosts } from '../storage/posts-repo.ts';
import { buildResultSafely, cleanReason, failedResult, type ResultInput } from './account-result.ts';
import type { TrackerContext } from './context.ts';
import { fetchNewPosts, type PostsWanted } from './fetch-posts.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { lookupBatch } from './lookup.ts';
import { readRefreshes, refreshedPosts } from './post-refresh.ts';
import { saveResults } from './save-results.ts';
import { coveredDids } from '../storage/stream-shards-repo.ts';
import { POSTS_STREAM } from '../domain/stream-shards.ts';
import { utcDay } from '../domain/spend.ts';
import { loadTextModels } from './text-models.ts';

const ANALYSIS_WINDOW_MS = 30 * 86_400_000;

export interface BatchReport {
  checked: number;
  /** Leases given back unchecked (rate limit, bad credentials, shutdown). */
  released: number;
  /** Results dropped because another tracker took the lease over. */
  leaseLost: number;
  /** Users the lookup read that the platform bills: those not billed yet this UTC day. */
  billed: number;
  /** The platform refused our credentials: the caller pauses the platform. */
  unauthorized?: boolean;
}

/** Checks a claimed batch; `ticket` is the lookup request the caller already took from the gate. */
export async function checkBatch(
  ctx: TrackerContext,
  accounts: readonly ClaimedAccount[],
  resolved: boolean,
  ticket: Ticket,
): Promise<BatchReport> {
  const leases = new LeaseKeeper(
    ctx.store,
    ctx.clock,
    ctx.owner,
    accounts.map((a) => a.id),
    ctx.settings.leaseMs,
    (error) => ctx.logger.warn({ err: error }, 'could not renew leases'),
  ).start();
  try {
    return await checkLeasedBatch(ctx, accounts, resolved, ticket, leases);
  } finally {
    await leases.stop();
  }
}

async function checkLeasedBatch(
  ctx: TrackerContext,
  accounts: readonly ClaimedAccount[],
  resolved: boolean,
  ticket: Ticket,
  leases: LeaseKeeper,
): Promise<BatchReport> {
  const started = performance.now();
  const platform = ctx.lane.client.platform;
  const keyOf = (a: ClaimedAccount) => (resolved ? (a.platformUserId ?? '') : a.username.toLowerCase());
  const { value: lookup, reads } = await lookupBatch(ctx, accounts.map(keyOf), resolved, ticket);
  const today = utcDay(ctx.clock.now());
  const unbilled = accounts.filter((a) => a.billedOn !== today);
  // X bills a user once per UTC day: only the users found that were not billed today cost anything.
  const billed =
    lookup instanceof PlatformError
      ? Math.min(reads, unbilled.length)
      : unbilled.filter((a) => lookup.get(keyOf(a))?.kind === 'found').length;
  if (
    ctx.signal.aborted ||
    (lookup instanceof PlatformError && (lookup.kind === 'rate_limited' || lookup.kind === 'unauthorized'))
  ) {
    // Not the accounts' fault: they stay due and any tracker may take them again.
    const released = await releaseLeases(
      ctx.store.db,
      ctx.owner,
      accounts.map((a) => a.id),
    );
    const unauthorized = lookup instanceof PlatformError && lookup.kind === 'unauthorized';
    return { checked: 0, released, leaseLost: 0, billed, unauthorized };
  }
  await leases.renewIfDue();

  const outcomes = lookup instanceof PlatformError ? new Map<string, LookupOutcome>() : lookup;
  const failure = lookup instanceof PlatformError ? cleanReason(`${lookup.kind}: ${lookup.message}`) : null;
  const wanted: PostsWanted[] = [];
  const noPosts = new Set<number>();
  for (const account of accounts) {
    const outcome = outcomes.get(keyOf(account));
    if (outcome?.kind !== 'found' || outcome.user.profile.protected === true) continue;
    if (outcome.user.posts === account.postsSeenCount) continue;
    if (outcome.user.posts === 0) noPosts.add(account.id);
    else
      wanted.push({
        accountId: account.id,
        platformUserId: outcome.user.platformUserId,
        sinceId: account.lastPostId,
        moved: Math.abs(outcome.user.posts - (account.postsSeenCount ?? 0)),
      });
  }
  const fetched: Map<number, PlatformPost[]> = await fetchNewPosts(ctx, await withoutStreamed(ctx, wanted));
  await leases.renewIfDue();
  const found = accounts.filter((a) => outcomes.get(keyOf(a))?.kind === 'found').map((a) => a.id);
  // New posts first (they are first checks), then the refresh of the recent ones; a protected
  // account's posts are not shown to us, so they keep their numbers.
  const visible = accounts.filter((a) => {
    const outcome = outcomes.get(keyOf(a));
    return outcome?.kind === 'found' && outcome.user.profile.protected !== true;
  });
  const refresh = await readRefreshes(
    ctx,
    visible.map((a) => a.id),
  );
  const now = ctx.clock.now();
  const refreshed = refreshedPosts(refresh, now, 2 * ctx.settings.intervalMs);
  const stored = await recentPosts(ctx.store.reader, found, now - ANALYSIS_WINDOW_MS);
  const textModels = await loadTextModels();

  const inputOf = (account: ClaimedAccount): ResultInput => ({
    account,
    outcome: failure === null ? outcomes.get(keyOf(account)) : { kind: 'unknown', reason: failure },
    newPosts: noPosts.has(account.id) ? [] : fetched.get(account.id),
    storedPosts: stored.get(account.id) ?? [],
    refreshedPosts: refreshed.get(account.id),
    now,
    settings: ctx.settings,
    random: ctx.random,
    textModels,
  });
  const checked = accounts.map((account) => {
    const result = buildResultSafely(inputOf(account));
    if (outcomes.get(keyOf(account))?.kind === 'found') result.write.billedOn = today;
    return { account, result };
  });
  await leases.renewIfDue();
  const written = await saveResults(ctx, checked, now, (account, reason) => failedResult(inputOf(account), reason));
  for (const result of written) ctx.metrics.accountChecked(platform, result.verdict);
  ctx.metrics.batchDone(platform, (performance.now() - started) / 1000, accounts.length);
  return { checked: written.length, released: 0, leaseLost: accounts.length - written.length, billed };
}

/**
 * The timelines still to read: a Bluesky account that a healthy Jetstream shard covers gets its
 * posts from the stream (its profile is still checked: counts are not on the stream). Its post
 * count stays unseen, so when the shard goes down polling reads everything since its last read.
 * A timeline never read (no last post) is always read: the stream brings only what comes next.
 */
async function withoutStreamed(ctx: TrackerContext, wanted: PostsWanted[]): Promise<PostsWanted[]> {
  const platform = ctx.lane.client.platform;
  if (platform !== 'bluesky' || wanted.length === 0) return wanted;
  const covered = await coveredDids(
    ctx.store.reader,
    POSTS_STREAM,
    wanted.flatMap((w) => (w.sinceId === null ? [] : [w.platformUserId])),
    ctx.clock.now(),
  );
  if (covered.size > 0) ctx.metrics.timelineReadsSaved(platform, covered.size);
  return wanted.filter((w) => !covered.has(w.platformUserId));
}
