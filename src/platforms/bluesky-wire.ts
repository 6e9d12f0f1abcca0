// Reading Bluesky AppView payloads (profileViewDetailed, feedViewPost, XRPC errors, ratelimit-*
// headers) into perch's platform shapes. Every field is checked: the wire is not trusted.
// Lexicons: https://github.com/bluesky-social/atproto/tree/main/lexicons/app/bsky
import { facetEntities } from './bluesky-facets.ts';
import type { ResponseHeaders } from './http.ts';
import type { PlatformPost, PlatformUser, RateLimitInfo } from './types.ts';
import { webUrlOrNull } from './web-url.ts';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Counts are optional in the lexicon (profileViewDetailed, postView): absent or odd means 0. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** atproto datetimes may carry any offset or none of the milliseconds; perch stores ISO UTC. */
function isoUtc(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** `error` / `message` of an XRPC error body (`{ "error": "AccountTakedown", "message": … }`). */
export function xrpcError(json: unknown): { error: string | null; message: string | null } {
  if (!isRecord(json)) return { error: null, message: null };
  return { error: text(json.error), message: text(json.message) };
}

/**
 * The `ratelimit-*` headers of atproto's xrpc-server: `ratelimit-reset` is epoch SECONDS
 * (`Math.floor((Date.now() + msBeforeNext) / 1000)` in packages/xrpc-server/src/rate-limiter.ts).
 * A small value is read as delta seconds, as the IETF ratelimit-headers draft has it, in case a
 * proxy in front rewrites the header.
 */
export function readRateLimit(headers: ResponseHeaders, now: number): RateLimitInfo | null {
  const limit = intOf(headers.get('ratelimit-limit'));
  const remaining = intOf(headers.get('ratelimit-remaining'));
  const reset = intOf(headers.get('ratelimit-reset'));
  if (limit === null || remaining === null || reset === null) return null;
  return { limit, remaining, resetAt: reset > 1_000_000_000 ? reset * 1000 : now + reset * 1000 };
}

function intOf(raw: string | null): number | null {
  return raw !== null && /^\s*\d+\s*$/.test(raw) ? Number(raw) : null;
}

/** The parts of app.bsky.actor.defs#profileViewDetailed that perch reads. */
export interface ProfileView {
  did: string;
  handle: string;
  raw: Json;
}

/** A profile needs a `did` and a `handle` (the lexicon's required fields); anything else is not one. */
export function parseProfile(value: unknown): ProfileView | null {
  if (!isRecord(value)) return null;
  const did = text(value.did);
  const handle = text(value.handle);
  if (did === null || !did.startsWith('did:') || handle === null) return null;
  return { did, handle, raw: value };
}

/** `{ profiles: [...] }` of app.bsky.actor.getProfiles; null when the body is not that shape. */
export function parseProfiles(json: unknown): ProfileView[] | null {
  if (!isRecord(json) || !Array.isArray(json.profiles)) return null;
  const profiles: ProfileView[] = [];
  for (const item of json.profiles) {
    const profile = parseProfile(item);
    if (profile) profiles.push(profile);
  }
  return profiles;
}

// Moderation labels that mean the account is down: Ozone's takedown and temporary suspension.
// `!no-unauthenticated` (hide from logged-out viewers) is an opt-in, not a protection.
const SUSPENDING_LABELS = new Set(['!takedown', '!suspend']);

/** The suspending label on the account, if any (a `neg: true` label retracts one). */
export function suspendingLabel(profile: ProfileView): string | null {
  const labels = profile.raw.labels;
  if (!Array.isArray(labels)) return null;
  for (const label of labels) {
    if (isRecord(label) && typeof label.val === 'string' && SUSPENDING_LABELS.has(label.val) && label.neg !== true)
      return label.val;
  }
  return null;
}

export function toPlatformUser(profile: ProfileView): PlatformUser {
  const raw = profile.raw;
  const verification = isRecord(raw.verification) ? raw.verification : null;
  return {
    platformUserId: profile.did,
    username: profile.handle,
    profile: {
      displayName: text(raw.displayName),
      description: text(raw.description),
      location: null,
      // profileViewDetailed has no url field of its own; `website` is the newer optional one.
      url: webUrlOrNull(text(raw.website)),
      profileImageUrl: webUrlOrNull(text(raw.avatar)),
      verified: verification ? verification.verifiedStatus === 'valid' : null,
      // Bluesky has no protected (followers-only) accounts: every post is public.
      protected: false,
      createdAt: isoUtc(raw.createdAt),
    },
    followers: count(raw.followersCount),
    following: count(raw.followsCount),
    posts: count(raw.postsCount),
    listed: null,
  };
}

/** `{ feed: [...], cursor? }` of app.bsky.feed.getAuthorFeed; null when the body is not that shape. */
export function parseFeedPage(json: unknown): { items: unknown[]; cursor: string | null } | null {
  if (!isRecord(json) || !Array.isArray(json.feed)) return null;
  if (json.cursor !== undefined && typeof json.cursor !== 'string') return null;
  return { items: json.feed, cursor: text(json.cursor) };
}

const REASON_REPOST = 'app.bsky.feed.defs#reasonRepost';
const REASON_PIN = 'app.bsky.feed.defs#reasonPin';
const POST_RECORD = 'app.bsky.feed.post';

/**
 * One app.bsky.feed.defs#feedViewPost as a PlatformPost; null for what is not a usable post (a
 * pinned copy, another record type, a post without text or date).
 */
export function toPlatformPost(item: unknown): PlatformPost | null {
  if (!isRecord(item)) return null;
  const reason = isRecord(item.reason) ? item.reason.$type : undefined;
  // With includePins the pinned post comes first, flagged reasonPin, and again in its place.
  if (reason === REASON_PIN) return null;
  return fromPostView(item.post, reason === REASON_REPOST);
}

/** One app.bsky.feed.defs#postView (a feed item's `post`, or an item of getPosts) as a PlatformPost. */
export function fromPostView(post: unknown, isRepost: boolean): PlatformPost | null {
  if (!isRecord(post)) return null;
  const uri = text(post.uri);
  const record = post.record;
  if (uri === null || !uri.startsWith('at://') || !isRecord(record)) return null;
  if (record.$type !== undefined && record.$type !== POST_RECORD) return null;
  if (typeof record.text !== 'string') return null;
  const createdAt = isoUtc(record.createdAt) ?? isoUtc(post.indexedAt);
  if (createdAt === null) return null;
  const langs = Array.isArray(record.langs) ? record.langs : [];
  return {
    id: uri,
    createdAt,
    text: record.text,
    lang: typeof langs[0] === 'string' ? langs[0] : null,
    isRepost,
    isReply: isRecord(record.reply),
    url: webUrlOrNull(webUrl(uri, isRecord(post.author) ? text(post.author.handle) : null)),
    likes: count(post.likeCount),
    reposts: count(post.repostCount),
    replies: count(post.replyCount),
    quotes: count(post.quoteCount),
    ...facetEntities(record.text, record.facets),
  };
}

/** `{ posts: [...] }` of app.bsky.feed.getPosts (raw postViews); null when the body is not that shape. */
export function parsePostViews(json: unknown): unknown[] | null {
  return isRecord(json) && Array.isArray(json.posts) ? json.posts : null;
}

/** The `uri` of a postView, or null. */
export function postViewUri(post: unknown): string | null {
  return isRecord(post) ? text(post.uri) : null;
}

// Moderation labels on a post that mean the AppView withholds it from viewers.
const HIDING_POST_LABELS = new Set(['!takedown', '!hide', '!suspend']);

/** The hiding label on a postView, if any (a `neg: true` label retracts one). */
export function hidingPostLabel(post: unknown): string | null {
  if (!isRecord(post) || !Array.isArray(post.labels)) return null;
  for (const label of post.labels) {
    if (isRecord(label) && typeof label.val === 'string' && HIDING_POST_LABELS.has(label.val) && label.neg !== true)
      return label.val;
  }
  return null;
}

/** `https://bsky.app/profile/<handle>/post/<rkey>`; the DID stands in for a handle that failed verification. */
function webUrl(uri: string, handle: string | null): string | null {
  const match = /^at:\/\/([^/]+)\/app\.bsky\.feed\.post\/([^/?#]+)$/.exec(uri);
  if (!match) return null;
  const [, repo, rkey] = match;
  const who = handle !== null && handle !== 'handle.invalid' ? handle : repo;
  return `https://bsky.app/profile/${who}/post/${rkey}`;
}
