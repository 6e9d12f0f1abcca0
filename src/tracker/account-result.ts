// Turns one account's lookup outcome (and any new or refreshed posts) into what the store keeps:
// the state change, profile and metrics, a history snapshot, the post rows and the recomputed
// analysis, from the posts' current numbers.
import type { MetricSnapshot } from '../domain/account.ts';
import { analyzeAccount, followerSeriesAppend, type AnalysisPost } from '../domain/analysis.ts';
import { changeOver } from '../domain/history-series.ts';
import type { Post } from '../domain/post.ts';
import { likesAt24h, recordObservation } from '../domain/post-history.ts';
import { detectLanguage, scoreSentiment, type TextModels } from '../domain/post-text.ts';
import { nextState, type CheckVerdict } from '../domain/tracking-rules.ts';
import { validateUsername } from '../domain/usernames.ts';
import type { LookupOutcome, PlatformPost } from '../platforms/types.ts';
import type { ClaimedAccount } from '../storage/leases-repo.ts';
import type { CheckWrite } from '../storage/tracking-repo.ts';
import type { TrackerSettings } from './context.ts';

const DAY_MS = 86_400_000;

export interface AccountResult {
  write: CheckWrite;
  snapshot: MetricSnapshot | null;
  posts: Post[];
  /** Stored posts whose metrics or status this check read again. */
  refreshed: Post[];
  verdict: CheckVerdict['kind'];
}

export interface ResultInput {
  account: ClaimedAccount;
  outcome: LookupOutcome | undefined;
  /** Newly fetched posts (newest first), or undefined when the timeline was not read. */
  newPosts: PlatformPost[] | undefined;
  /** Stored posts of the last 30 days. */
  storedPosts: readonly Post[];
  /** Stored posts this check read again (post-refresh.ts), as they are to be stored. */
  refreshedPosts?: readonly Post[];
  now: number;
  settings: TrackerSettings;
  random: () => number;
  /** What new posts are scored with (text-models.ts). */
  textModels: TextModels;
}

export function verdictOf(outcome: LookupOutcome | undefined): CheckVerdict {
  if (!outcome) return { kind: 'failed', reason: 'the platform did not answer for this account' };
  switch (outcome.kind) {
    case 'found':
      return { kind: 'found', protected: outcome.user.profile.protected === true };
    case 'not_found':
      return { kind: 'not_found', reason: outcome.reason };
    case 'suspended':
      return { kind: 'suspended', reason: outcome.reason };
    // A name the platform refuses outright cannot exist there.
    case 'invalid':
      return { kind: 'not_found', reason: outcome.reason };
    case 'unknown':
      return { kind: 'failed', reason: outcome.reason };
  }
}

/** PostgreSQL text refuses U+0000, and no platform means one: drop it from whatever a platform sends. */
const clean = (text: string): string => (text.includes('\u0000') ? text.replaceAll('\u0000', '') : text);
const cleanAll = (list: readonly string[]): string[] => list.map(clean);

/** Longest error or reason kept (a platform may send a whole HTML page as its message). */
const MAX_REASON_LENGTH = 500;
/**
 * An error or reason as the store keeps it: no NUL (PostgreSQL refuses it) nor other control
 * characters (they garble logs and terminals reading health), line breaks folded to spaces, bounded.
 */
export function cleanReason(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const flat = text.replace(/[\t\n\r]+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  return flat.length > MAX_REASON_LENGTH ? `${flat.slice(0, MAX_REASON_LENGTH - 1)}…` : flat;
}
const cleanOptional = (text: string | null | undefined): string | null | undefined =>
  typeof text === 'string' ? cleanReason(text) : text;

/** A newly read post as stored; `toleranceMs` decides whether its age gives a history sample. */
export function newPost(
  accountId: number,
  post: PlatformPost,
  now: number,
  toleranceMs: number,
  models: TextModels,
): Post {
  const text = clean(post.text);
  const lang = detectLanguage(models, text, post.lang === null ? null : clean(post.lang));
  const createdAt = Date.parse(post.createdAt) || now;
  return {
    accountId,
    id: clean(post.id),
    createdAt,
    text,
    url: post.url === null ? null : clean(post.url),
    lang,
    // The sentiment lexicon is English: a post known to be in another language gets no score.
    sentiment: lang === null || lang === 'en' ? scoreSentiment(models, text) : null,
    isRepost: post.isRepost,
    isReply: post.isReply,
    likes: post.likes,
    reposts: post.reposts,
    replies: post.replies,
    quotes: post.quotes,
    hashtags: cleanAll(post.hashtags),
    mentions: cleanAll(post.mentions),
    domains: cleanAll(post.domains),
    fetchedAt: now,
    metricsObservedAt: now,
    status: 'live',
    statusAt: null,
    metricsHistory: recordObservation([], createdAt, now, post, toleranceMs),
  };
}

const toAnalysisPost = (post: Post): AnalysisPost => ({ ...post, likesAt24h: likesAt24h(post.metricsHistory) });

/**
 * The result of one account, or, when building it throws (a value no code path expected), a failed
 * check with the reason: one account's surprise never fails the batch it came in.
 */
export function buildResultSafely(input: ResultInput): AccountResult {
  try {
    return buildResult(input);
  } catch (error) {
    return failedResult(
      input,
      `internal error while reading the result: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A failed check of the account (it backs off like any failure), with `reason` as its error. */
export function failedResult(input: ResultInput, reason: string): AccountResult {
  return buildResult({ ...input, outcome: { kind: 'unknown', reason }, newPosts: undefined, storedPosts: [] });
}

export function buildResult(input: ResultInput): AccountResult {
  const { account, outcome, newPosts, storedPosts, now, settings, random, textModels } = input;
  const verdict = verdictOf(outcome);
  const change = nextState(account.status, account.consecutiveFailures, verdict, settings.intervalMs, random);
  const write: CheckWrite = {
    id: account.id,
    status: change.status,
    statusReason: cleanOptional(change.statusReason),
    nextCheckAt: now + change.delayMs,
    claimedDueAt: account.dueAt,
    claimedStatus: account.status,
    consecutiveFailures: change.consecutiveFailures,
    lastError: cleanOptional(change.lastError) ?? null,
  };
  if (verdict.kind !== 'failed') write.lastCheckedAt = now;
  if (outcome?.kind !== 'found') return { write, snapshot: null, posts: [], refreshed: [], verdict: verdict.kind };

  const { user } = outcome;
  write.platformUserId = clean(user.platformUserId);
  const renamed = validateUsername(account.platform, user.username);
  if (renamed.ok && user.username !== account.username) {
    write.username = renamed.username;
    write.usernameKey = renamed.key;
    // A different name (not just different case, not a DID resolved to its handle) is a rename.
    if (renamed.key !== account.username.toLowerCase() && account.platformUserId !== null) {
      write.renames = [
        ...account.renames,
        { from: account.username, to: renamed.username, at: new Date(now).toISOString() },
      ];
    }
  }
  write.profile = Object.fromEntries(
    Object.entries(user.profile).map(([key, value]) => [key, typeof value === 'string' ? clean(value) : value]),
  );
  write.metrics = {
    followers: user.followers,
    following: user.following,
    posts: user.posts,
    listed: user.listed,
    observedAt: new Date(now).toISOString(),
  };
  write.followers = user.followers;

  const posts = (newPosts ?? []).map((post) => newPost(account.id, post, now, 2 * settings.intervalMs, textModels));
  const refreshed = [...(input.refreshedPosts ?? [])];
  if (newPosts !== undefined) {
    write.postsSeenCount = user.posts;
    if (posts[0]) write.lastPostId = posts[0].id;
  }
  const byId = new Map<string, Post>();
  for (const post of [...storedPosts, ...refreshed, ...posts]) byId.set(post.id, post);

  const series = followerSeriesAppend(account.followerSeries, now, user.followers);
  const analysis = analyzeAccount({
    now,
    intervalMs: settings.intervalMs,
    observedAt: now,
    followers: user.followers,
    followerSeries: account.followerSeries,
    // A deleted or hidden post is no longer among the account's posts on the platform.
    posts: [...byId.values()].filter((post) => post.status === 'live').map(toAnalysisPost),
  });
  write.followerSeries = series;
  write.analysis = analysis;
  write.followersChange7d = analysis.followers.change7d;
  write.followersChange1d = changeOver(account.followerSeries, now, user.followers, DAY_MS);

  const bucket = Math.floor(now / settings.historyBucketMs) * settings.historyBucketMs;
  const snapshot: MetricSnapshot = {
    accountId: account.id,
    bucket,
    observedAt: now,
    followers: user.followers,
    following: user.following,
    posts: user.posts,
    listed: user.listed,
  };

  return { write, snapshot, posts, refreshed, verdict: verdict.kind };
}
