// Reading Bluesky AppView payloads (profileViewDetailed, feedViewPost, XRPC errors, ratelimit-*
// headers) into perch's platform shapes. Every field is checked: the wire is not trusted.
// Lexicons: https://github.com/bluesky-social/atproto/tree/main/lexicons/app/bsky
import type { PlatformPost, PlatformUser, RateLimitInfo } from './types.ts';

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
export function readRateLimit(headers: Headers, now: number): RateLimitInfo | null {
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
    if (isRecord(label) && typeof label.val === 'string' && SUSPENDING_LABELS.has(label.val) && label.neg !== true) return label.val;
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
      url: text(raw.website),
      profileImageUrl: text(raw.avatar),
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
  if (!isRecord(item) || !isRecord(item.post)) return null;
  const reason = isRecord(item.reason) ? item.reason.$type : undefined;
  // With includePins the pinned post comes first, flagged reasonPin, and again in its place.
  if (reason === REASON_PIN) return null;
  const post = item.post;
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
    isRepost: reason === REASON_REPOST,
    isReply: isRecord(record.reply),
    url: webUrl(uri, isRecord(post.author) ? text(post.author.handle) : null),
    likes: count(post.likeCount),
    reposts: count(post.repostCount),
    replies: count(post.replyCount),
    quotes: count(post.quoteCount),
    ...facetEntities(record.text, record.facets),
  };
}

/** `https://bsky.app/profile/<handle>/post/<rkey>`; the DID stands in for a handle that failed verification. */
function webUrl(uri: string, handle: string | null): string | null {
  const match = /^at:\/\/([^/]+)\/app\.bsky\.feed\.post\/([^/?#]+)$/.exec(uri);
  if (!match) return null;
  const [, repo, rkey] = match;
  const who = handle !== null && handle !== 'handle.invalid' ? handle : repo;
  return `https://bsky.app/profile/${who}/post/${rkey}`;
}

/**
 * Hashtags, mentions and link domains from app.bsky.richtext.facet. A mention facet carries
 * only a DID, so the handle is read from the text it covers; `byteStart`/`byteEnd` index the
 * UTF-8 bytes of the text, not its UTF-16 code units (lexicons/app/bsky/richtext/facet.json).
 */
function facetEntities(postText: string, facets: unknown): Pick<PlatformPost, 'hashtags' | 'mentions' | 'domains'> {
  const found = { hashtags: [] as string[], mentions: [] as string[], domains: [] as string[] };
  if (!Array.isArray(facets)) return found;
  let bytes: Buffer | null = null;
  for (const facet of facets) {
    if (!isRecord(facet) || !Array.isArray(facet.features)) continue;
    for (const feature of facet.features) {
      if (!isRecord(feature)) continue;
      if (feature.$type === 'app.bsky.richtext.facet#tag') {
        const tag = text(feature.tag);
        if (tag !== null) found.hashtags.push(tag.replace(/^#/, ''));
      } else if (feature.$type === 'app.bsky.richtext.facet#link') {
        const domain = domainOf(feature.uri);
        if (domain !== null) found.domains.push(domain);
      } else if (feature.$type === 'app.bsky.richtext.facet#mention') {
        bytes ??= Buffer.from(postText, 'utf8');
        const handle = mentionedHandle(bytes, facet.index);
        if (handle !== null) found.mentions.push(handle);
      }
    }
  }
  return found;
}

function mentionedHandle(bytes: Buffer, index: unknown): string | null {
  if (!isRecord(index)) return null;
  const { byteStart, byteEnd } = index;
  if (!Number.isSafeInteger(byteStart) || !Number.isSafeInteger(byteEnd)) return null;
  const start = byteStart as number;
  const end = byteEnd as number;
  if (start < 0 || end <= start || end > bytes.length) return null;
  const handle = bytes.subarray(start, end).toString('utf8').trim().replace(/^@/, '');
  return /^[^\s@]+$/.test(handle) ? handle : null;
}

function domainOf(uri: unknown): string | null {
  if (typeof uri !== 'string') return null;
  try {
    const host = new URL(uri).hostname.toLowerCase();
    return host === '' ? null : host.replace(/^www\./, '');
  } catch {
    return null;
  }
}
