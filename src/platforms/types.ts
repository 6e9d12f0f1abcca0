// What every platform client offers the tracker, whatever its wire format. Clients map the
// platform's payloads into these shapes; they never touch the store or decide schedules.
import type { AccountProfile } from '../domain/account.ts';
import type { PostFigures } from '../domain/analysis.ts';
import type { FollowerIdentity } from '../domain/followers.ts';
import type { Platform } from '../domain/platforms.ts';

/** A user as the platform returned it. */
export interface PlatformUser {
  platformUserId: string;
  /** The current handle (case as the platform writes it). */
  username: string;
  profile: AccountProfile;
  followers: number;
  following: number;
  /** X `tweet_count` (or its newer name `post_count`); Bluesky `postsCount`. */
  posts: number;
  /** X `listed_count`; null where the platform has no such figure. */
  listed: number | null;
}

/**
 * The answer for one requested name or id. `found` covers protected accounts too
 * (`user.profile.protected`). `invalid` is a name the platform refuses outright; `unknown` is a
 * per-item error the client could not classify (kept as the reason, retried later).
 */
export type LookupOutcome =
  | { kind: 'found'; user: PlatformUser }
  | { kind: 'not_found'; reason: string }
  | { kind: 'suspended'; reason: string }
  | { kind: 'invalid'; reason: string }
  | { kind: 'unknown'; reason: string };

/** A post with its metrics at fetch time and the entities the platform itself extracted. */
export interface PlatformPost extends PostFigures {
  /** X tweet id; Bluesky `at://` URI. */
  id: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  isReply: boolean;
}

/** Rate-limit state read from one response's headers. `resetAt` is epoch milliseconds. */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  resetAt: number;
}

/** Every call reports what it learnt about its endpoint's rate limit, and how many resources it read (X bills per read). */
export interface CallResult<T> {
  value: T;
  rateLimit: RateLimitInfo | null;
  /** Resources returned (users or posts): what X counts against the daily read budget. */
  reads: number;
}

/**
 * What a post lookup found for one requested id. `deleted`: the platform says the post does not
 * exist (any more); `hidden`: it exists but is withheld (a protected author, a moderation label);
 * `unknown`: a per-item error the client could not classify (the post keeps its numbers).
 */
export type PostLookupOutcome =
  | { kind: 'found'; post: PlatformPost }
  | { kind: 'deleted'; reason: string }
  | { kind: 'hidden'; reason: string }
  | { kind: 'unknown'; reason: string };

/** The rate-limited operations; each has its own window on the platform. */
export type Endpoint = 'lookup_by_name' | 'lookup_by_id' | 'posts' | 'post_lookup' | 'followers';

/**
 * Meters every HTTP request a call sends (the tracker passes its rate gate): a call that sends
 * several (X's 400 splitting, Bluesky's per-actor fallbacks, timeline and feed pages, post lookups
 * of more than one batch) asks before each one and reports after each one.
 */
export interface RequestPacer {
  /** Resolves false when no request may go now: the call then fails as `rate_limited`. */
  before(): Promise<boolean>;
  /** What the answer said about the window (null: nothing, or no answer) and a 429's retry time. */
  after(rateLimit: RateLimitInfo | null, retryAt: number | null): Promise<void>;
}

/** One page of an account's followers, newest first; `cursor` asks for the next (null: the last page). */
export interface FollowerPage {
  followers: FollowerIdentity[];
  cursor: string | null;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  pacer?: RequestPacer | undefined;
}

export interface PlatformClient {
  readonly platform: Platform;
  /** Most names or ids one lookup request may carry (X 100, Bluesky 25). */
  readonly batchSize: number;
  /** Most posts one post lookup request may carry (X 100, Bluesky 25). */
  readonly postBatchSize: number;
  /** False when the client cannot run (X without a bearer token). */
  readonly configured: boolean;
  /**
   * Which endpoints share one rate-limit window on the platform (same name = same window). X
   * limits each endpoint on its own; Bluesky's AppView counts all of a client's requests together.
   */
  readonly rateLimitGroups: Readonly<Record<Endpoint, string>>;
  /**
   * Whose limits these are (a fingerprint of the credential, never the credential): trackers with
   * the same scope share the windows in the store; a new token starts with fresh windows.
   */
  readonly rateLimitScope: string;
  /** Outcomes keyed by the lower-cased requested name. */
  lookupByUsernames(names: readonly string[], options?: CallOptions): Promise<CallResult<Map<string, LookupOutcome>>>;
  /** Outcomes keyed by the requested id. */
  lookupByIds(ids: readonly string[], options?: CallOptions): Promise<CallResult<Map<string, LookupOutcome>>>;
  /**
   * Posts newer than `sinceId` (all recent ones when null), newest first, at most `limit`.
   * Includes the account's reposts of others, flagged `isRepost`.
   */
  fetchPosts(
    userId: string,
    sinceId: string | null,
    limit: number,
    options?: CallOptions,
  ): Promise<CallResult<PlatformPost[]>>;
  /**
   * The current state of known posts (X `GET /2/tweets`, Bluesky `app.bsky.feed.getPosts`), in
   * requests of `postBatchSize`; outcomes keyed by the requested id, one for every id asked.
   */
  lookupPosts(ids: readonly string[], options?: CallOptions): Promise<CallResult<Map<string, PostLookupOutcome>>>;
  /** Most followers one follower page holds (X 1,000, Bluesky 100). */
  readonly followerPageSize: number;
  /** One page of the account's followers (one request), from `cursor` (null: the first page). */
  fetchFollowers(userId: string, cursor: string | null, options?: CallOptions): Promise<CallResult<FollowerPage>>;
}

/**
 * Why a whole request failed. `rate_limited` carries when the window reopens (epoch ms);
 * `unavailable` is worth a retry with backoff (5xx, network error, timeout); `bad_response` is a
 * body we could not use (invalid JSON, over the size cap, wrong shape); `unauthorized` means the
 * credentials are refused; `invalid_request` is a 4xx the platform will repeat.
 */
export type PlatformErrorKind = 'rate_limited' | 'unavailable' | 'bad_response' | 'unauthorized' | 'invalid_request';

export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  readonly status: number | null;
  readonly retryAt: number | null;
  readonly rateLimit: RateLimitInfo | null;
  /**
   * Resources already read (and billed, on X) by earlier requests of the same call before this
   * one failed; absent when none were.
   */
  readonly reads?: number;
  constructor(
    kind: PlatformErrorKind,
    message: string,
    options: {
      status?: number | null;
      retryAt?: number | null;
      rateLimit?: RateLimitInfo | null;
      cause?: unknown;
      reads?: number;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'PlatformError';
    this.kind = kind;
    this.status = options.status ?? null;
    this.retryAt = options.retryAt ?? null;
    this.rateLimit = options.rateLimit ?? null;
    if (options.reads !== undefined) this.reads = options.reads;
  }
}
