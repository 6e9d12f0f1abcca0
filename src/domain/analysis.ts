// The account analysis stored with each account after a check: pure arithmetic over the stored
// posts and the compact follower series, the same definitions on every platform (DESIGN.md §4).
import { byCountThenName, count, iso, round, tally, top, topPosts } from './analysis-figures.ts';
import type { AnalysisPost, TopPost } from './post-figures.ts';
import { DAY_MS, followersAtOrBefore, type FollowerSeries } from './history-series.ts';

export { followerSeriesAppend, type FollowerSeries } from './history-series.ts';
export type { AnalysisPost, PostFigures, TopPost } from './post-figures.ts';

export interface AnalysisInput {
  /** Epoch ms. */
  now: number;
  /** The tracking interval, for `stale`. */
  intervalMs: number;
  /** When the metrics were last observed (epoch ms). */
  observedAt: number;
  followers: number;
  /** Followers at earlier times, oldest first: [epoch ms, followers]; may be empty. */
  followerSeries: FollowerSeries;
  /** The account's stored posts, any age, with their latest metrics; deleted or hidden ones left out. */
  posts: readonly AnalysisPost[];
}

export interface AccountAnalysis {
  followers: {
    change1d: number | null;
    change7d: number | null;
    change30d: number | null;
    growthRate7d: number | null;
  };
  activity: { postsPerDay7d: number; lastPostAt: string | null; activeHoursUtc: number[] };
  engagement: {
    avgLikes: number | null;
    avgReposts: number | null;
    avgReplies: number | null;
    engagementRate: number | null;
    postsConsidered: number;
    /** Absent from an analysis stored before it was computed (the next check adds it). */
    likesFirst24h?: number | null;
  };
  content: {
    topHashtags: { tag: string; count: number }[];
    topMentions: { username: string; count: number }[];
    topDomains: { domain: string; count: number }[];
    languages: { lang: string; share: number }[];
    sentiment: { mean: number | null; positiveShare: number | null; negativeShare: number | null; postsScored: number };
  };
  topPosts: TopPost[];
  computedAt: string;
  stale: boolean;
}

/** Posts dated further ahead of `now` than this are ignored: Bluesky's `createdAt` is set by the client's clock. */
const FUTURE_TOLERANCE_MS = 10 * 60_000;
const SENTIMENT_THRESHOLD = 0.05;
/** Platforms give entities without their marker, but a stray one must not split a count. */
const HASH_MARK = /^[#＃]/;
const AT_MARK = /^@/;

/**
 * The analysis of one account. The definitions are the contract:
 *
 * - Own posts are those with `isRepost` false; reposts of others count nowhere. A post is "in the
 *   last N days" when `now − N days ≤ createdAt ≤ now + 10 min` (a few minutes' tolerance for
 *   clock skew; posts dated further ahead are ignored everywhere).
 * - `followers.changeNd` = followers now − followers at the latest series point at or before
 *   `now − N days`; null when there is no such point (tracked for less than N days).
 *   `growthRate7d` = change7d / followers-then × 100, 2 decimals; null when followers-then is 0
 *   or unknown.
 * - `activity.postsPerDay7d` = own posts of the last 7 days / 7, 2 decimals. `lastPostAt` = the
 *   newest own post's `createdAt` (ISO 8601), any age. `activeHoursUtc` = 24 counts of own posts
 *   of the last 30 days by UTC hour of `createdAt`.
 * - `engagement`, over own posts of the last 30 days (`postsConsidered` of them): `avgLikes`,
 *   `avgReposts`, `avgReplies` = means, 2 decimals; `engagementRate` = mean over those posts of
 *   (likes + reposts + replies + quotes) / current followers × 100, 2 decimals. All null with no
 *   posts; `engagementRate` also null when followers is 0. `likesFirst24h` = mean likes at 24 h
 *   of age over those of the posts that have a 24 h sample (2 decimals); null when none has.
 * - `content`, over own posts of the last 30 days: `topHashtags` / `topMentions` / `topDomains`
 *   = the 10 values carried by the most posts (each counted once per post; compared and shown
 *   lower-case, without a leading #/@), ties in alphabetical order. `languages` = each `lang`'s
 *   share of the posts that have one (2 decimals), by share then alphabetically. `sentiment`
 *   over the posts with a score (`postsScored`): `mean` (3 decimals), `positiveShare` = share
 *   scoring > 0.05, `negativeShare` = share scoring < −0.05 (2 decimals); null when none.
 * - `topPosts` = the 5 own posts of the last 30 days with the highest score = 5·replies +
 *   3·reposts + 2·likes; ties go to the newer post, then by id. `text` is cut to 280 characters.
 * - `computedAt` = ISO 8601 of `now`; `stale` = now − observedAt > 2 × intervalMs.
 *
 * Counts that are not finite non-negative numbers are read as 0 (fractions floored), so the
 * output is always finite.
 */
export function analyzeAccount(input: AnalysisInput): AccountAnalysis {
  const now = Number.isFinite(input.now) ? input.now : 0;
  const followers = count(input.followers);
  const since7d = now - 7 * DAY_MS;
  const since30d = now - 30 * DAY_MS;
  const latest = now + FUTURE_TOLERANCE_MS;

  const recent: AnalysisPost[] = [];
  let lastPostAt = -Infinity;
  let posts7d = 0;
  for (const post of input.posts) {
    if (post.isRepost || !(post.createdAt <= latest)) continue;
    if (post.createdAt > lastPostAt) lastPostAt = post.createdAt;
    if (post.createdAt >= since30d) recent.push(post);
    if (post.createdAt >= since7d) posts7d += 1;
  }

  const activeHoursUtc = new Array<number>(24).fill(0);
  let likes = 0;
  let reposts = 0;
  let replies = 0;
  let interactions = 0;
  let likes24h = 0;
  let with24h = 0;
  const hashtags = new Map<string, number>();
  const mentions = new Map<string, number>();
  const domains = new Map<string, number>();
  const languages = new Map<string, number>();
  let withLang = 0;
  let scored = 0;
  let sentimentSum = 0;
  let positive = 0;
  let negative = 0;
  for (const post of recent) {
    activeHoursUtc[Math.floor((((post.createdAt % DAY_MS) + DAY_MS) % DAY_MS) / 3_600_000)]! += 1;
    likes += count(post.likes);
    reposts += count(post.reposts);
    replies += count(post.replies);
    interactions += count(post.likes) + count(post.reposts) + count(post.replies) + count(post.quotes);
    if (post.likesAt24h !== undefined && post.likesAt24h !== null) {
      likes24h += count(post.likesAt24h);
      with24h += 1;
    }
    tally(hashtags, post.hashtags, HASH_MARK);
    tally(mentions, post.mentions, AT_MARK);
    tally(domains, post.domains, null);
    const lang = post.lang?.trim().toLowerCase();
    if (lang) {
      languages.set(lang, (languages.get(lang) ?? 0) + 1);
      withLang += 1;
    }
    const sentiment = post.sentiment;
    if (sentiment !== null && Number.isFinite(sentiment)) {
      const clamped = Math.min(1, Math.max(-1, sentiment));
      scored += 1;
      sentimentSum += clamped;
      if (clamped > SENTIMENT_THRESHOLD) positive += 1;
      if (clamped < -SENTIMENT_THRESHOLD) negative += 1;
    }
  }

  const n = recent.length;
  const followersThen = (days: number): number | null => {
    const then = followersAtOrBefore(input.followerSeries, now - days * DAY_MS);
    return then === null ? null : count(then);
  };
  const change = (then: number | null): number | null => (then === null ? null : followers - then);
  const then7d = followersThen(7);
  const change7d = change(then7d);

  return {
    followers: {
      change1d: change(followersThen(1)),
      change7d,
      change30d: change(followersThen(30)),
      growthRate7d: change7d === null || !then7d ? null : round((change7d / then7d) * 100, 2),
    },
    activity: {
      postsPerDay7d: round(posts7d / 7, 2),
      lastPostAt: lastPostAt === -Infinity ? null : iso(lastPostAt),
      activeHoursUtc,
    },
    engagement: {
      avgLikes: n === 0 ? null : round(likes / n, 2),
      avgReposts: n === 0 ? null : round(reposts / n, 2),
      avgReplies: n === 0 ? null : round(replies / n, 2),
      engagementRate: n === 0 || followers === 0 ? null : round((interactions / n / followers) * 100, 2),
      postsConsidered: n,
      likesFirst24h: with24h === 0 ? null : round(likes24h / with24h, 2),
    },
    content: {
      topHashtags: top(hashtags).map(([tag, c]) => ({ tag, count: c })),
      topMentions: top(mentions).map(([username, c]) => ({ username, count: c })),
      topDomains: top(domains).map(([domain, c]) => ({ domain, count: c })),
      languages: [...languages].sort(byCountThenName).map(([lang, c]) => ({ lang, share: round(c / withLang, 2) })),
      sentiment: {
        mean: scored === 0 ? null : round(sentimentSum / scored, 3),
        positiveShare: scored === 0 ? null : round(positive / scored, 2),
        negativeShare: scored === 0 ? null : round(negative / scored, 2),
        postsScored: scored,
      },
    },
    topPosts: topPosts(recent),
    computedAt: iso(now),
    stale: now - input.observedAt > 2 * input.intervalMs,
  };
}

/**
 * `stale` depends on when a record is read, not on when it was analysed: it is set here, at read
 * time, from the metrics' `observedAt` (true when older than twice the tracking interval).
 */
export function withStaleness<
  T extends { metrics: { observedAt: string } | null; analysis: { stale: boolean } | null },
>(account: T, now: number, intervalMs: number): T {
  if (account.analysis === null || account.metrics === null) return account;
  const stale = isStale(account.metrics.observedAt, now, intervalMs);
  return account.analysis.stale === stale ? account : { ...account, analysis: { ...account.analysis, stale } };
}

/** True when metrics observed at `observedAt` (ISO 8601) are older than twice the tracking interval. */
export function isStale(observedAt: string, now: number, intervalMs: number): boolean {
  const at = Date.parse(observedAt);
  return Number.isFinite(at) && now - at > 2 * intervalMs;
}
