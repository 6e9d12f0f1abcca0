// X API v2 payloads as perch reads them: unknown JSON narrowed by hand into users, posts, per-item
// problems and rate-limit state. Shapes: https://docs.x.com/x-api/users/get-users-by-usernames,
// https://docs.x.com/x-api/users/get-posts and the problem types in https://api.x.com/2/openapi.json.
import { intHeader } from './http.ts';
import { PlatformError, type LookupOutcome, type PlatformPost, type PlatformUser, type RateLimitInfo } from './types.ts';

/** Only the user fields perch stores; `id`, `name` and `username` always come. */
export const USER_FIELDS = 'created_at,description,location,url,profile_image_url,verified,protected,public_metrics';
/** Only the post fields perch stores; `id` and `text` always come. */
export const TWEET_FIELDS = 'created_at,public_metrics,entities,lang,referenced_tweets,in_reply_to_user_id';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
/** X sends "" for an empty description or url; perch stores null. */
function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
function bool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}
function isoDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
function badShape(message: string): PlatformError {
  return new PlatformError('bad_response', `X payload: ${message}`, { status: 200 });
}

/** One item of X's `errors[]` (RFC 7807-style problem), as far as perch needs it. */
export interface XProblem {
  title: string | null;
  detail: string | null;
  type: string | null;
  /** The requested name or id the problem is about (`value`, else `resource_id`). */
  value: string | null;
  /** `includes` when the problem is about an expanded object, not a requested one. */
  section: string | null;
}

function parseProblem(item: unknown): XProblem | null {
  if (!isObject(item)) return null;
  return {
    title: str(item.title),
    detail: str(item.detail),
    type: str(item.type),
    value: str(item.value) ?? str(item.resource_id),
    section: str(item.section),
  };
}

/**
 * X reports a missing user as `type: …/resource-not-found, title: "Not Found Error"`, and a
 * suspended one with the same type but `title: "Forbidden", detail: "User has been suspended: [x]."`,
 * so title and detail decide before the type does.
 */
export function outcomeOfProblem(problem: XProblem): LookupOutcome {
  const reason = problem.detail ?? problem.title ?? 'X reported an error without detail';
  if (problem.title === 'Forbidden' || /^User has been suspended/i.test(problem.detail ?? '')) return { kind: 'suspended', reason };
  const notFoundType = problem.type?.endsWith('/resource-not-found') ?? false;
  if (problem.title === 'Not Found Error' || (notFoundType && problem.title === null)) return { kind: 'not_found', reason };
  return { kind: 'unknown', reason };
}

export function parseUser(item: unknown): PlatformUser {
  if (!isObject(item)) throw badShape('a user is not an object');
  const id = str(item.id);
  const username = str(item.username);
  if (!id || !username) throw badShape('a user has no id or username');
  const metrics = item.public_metrics;
  if (!isObject(metrics)) throw badShape(`user ${id} has no public_metrics`);
  const followers = count(metrics.followers_count);
  const following = count(metrics.following_count);
  // X has started to call tweet_count post_count in some payloads; either is the same figure.
  const posts = count(metrics.tweet_count) ?? count(metrics.post_count);
  if (followers === null || following === null || posts === null) throw badShape(`user ${id} has incomplete public_metrics`);
  return {
    platformUserId: id,
    username,
    profile: {
      displayName: text(item.name),
      description: text(item.description),
      location: text(item.location),
      url: text(item.url),
      profileImageUrl: text(item.profile_image_url),
      verified: bool(item.verified),
      protected: bool(item.protected),
      createdAt: isoDate(item.created_at),
    },
    followers,
    following,
    posts,
    listed: count(metrics.listed_count),
  };
}

/** A 200 from `/2/users/by` or `/2/users`: found users in `data`, the others in `errors` (both optional). */
export function parseUsersPage(body: unknown): { users: PlatformUser[]; problems: XProblem[] } {
  if (!isObject(body)) throw badShape('the body is not a JSON object');
  if (body.data === undefined && body.errors === undefined) throw badShape('neither data nor errors');
  if (body.data !== undefined && !Array.isArray(body.data)) throw badShape('data is not an array');
  if (body.errors !== undefined && !Array.isArray(body.errors)) throw badShape('errors is not an array');
  const problems = list(body.errors).map(parseProblem).filter((p): p is XProblem => p !== null && p.section !== 'includes');
  return { users: list(body.data).map(parseUser), problems };
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}

function entityValues(entities: JsonObject, key: string, read: (item: JsonObject) => string | null): string[] {
  const values = new Set<string>();
  for (const item of list(entities[key])) {
    const value = isObject(item) ? read(item) : null;
    if (value) values.add(value);
  }
  return [...values];
}

export function parsePost(item: unknown): PlatformPost {
  if (!isObject(item)) throw badShape('a post is not an object');
  const id = str(item.id);
  const createdAt = isoDate(item.created_at);
  if (!id || createdAt === null || typeof item.text !== 'string') throw badShape('a post has no id, text or created_at');
  const metrics = isObject(item.public_metrics) ? item.public_metrics : {};
  const references = list(item.referenced_tweets).map((ref) => (isObject(ref) ? str(ref.type) : null));
  const entities = isObject(item.entities) ? item.entities : {};
  const lang = text(item.lang);
  return {
    id,
    createdAt,
    text: item.text,
    // `und` is X's code for "undetermined", which is no language.
    lang: lang === 'und' ? null : lang,
    isRepost: references.includes('retweeted'),
    isReply: references.includes('replied_to'),
    url: `https://x.com/i/web/status/${id}`,
    likes: count(metrics.like_count) ?? 0,
    reposts: count(metrics.retweet_count) ?? 0,
    replies: count(metrics.reply_count) ?? 0,
    quotes: count(metrics.quote_count) ?? 0,
    hashtags: entityValues(entities, 'hashtags', (h) => str(h.tag)),
    mentions: entityValues(entities, 'mentions', (m) => str(m.username)),
    domains: entityValues(entities, 'urls', (u) => {
      const url = str(u.expanded_url) ?? str(u.url);
      return url === null ? null : hostOf(url);
    }),
  };
}

/**
 * A 200 from `/2/users/:id/tweets`. An empty timeline has no `data`, only `meta.result_count: 0`;
 * a suspended, deleted or protected author comes back as `errors` alone.
 */
export function parseTimelinePage(body: unknown): { posts: PlatformPost[]; nextToken: string | null; problems: XProblem[] } {
  if (!isObject(body)) throw badShape('the body is not a JSON object');
  if (body.data !== undefined && !Array.isArray(body.data)) throw badShape('data is not an array');
  if (body.data === undefined && body.meta === undefined && body.errors === undefined) throw badShape('neither data, meta nor errors');
  const meta = isObject(body.meta) ? body.meta : {};
  const problems = list(body.errors).map(parseProblem).filter((p): p is XProblem => p !== null && p.section !== 'includes');
  return { posts: list(body.data).map(parsePost), nextToken: text(meta.next_token), problems };
}

/**
 * Reads a 400 `invalid-request` body. X names each malformed value in a message such as
 * "The `usernames` query parameter value [bad.name] does not match ^[A-Za-z0-9_]{1,15}$", while
 * `parameters` carries the whole comma-separated list, so the message is what tells values apart.
 */
export function parseInvalidRequest(body: unknown, parameter: string): { values: Map<string, string>; otherParameter: string | null; message: string | null } {
  const values = new Map<string, string>();
  let otherParameter: string | null = null;
  let message: string | null = null;
  const errors = isObject(body) ? list(body.errors) : [];
  for (const error of errors) {
    if (!isObject(error)) continue;
    const said = str(error.message) ?? str(error.detail);
    message ??= said;
    const named = /`([^`]+)`/.exec(said ?? '')?.[1] ?? (isObject(error.parameters) ? Object.keys(error.parameters)[0] : undefined);
    if (named !== undefined && named !== parameter) {
      otherParameter = named;
      continue;
    }
    const value = /parameter value \[(.*)\] (?:does not match|is not)/.exec(said ?? '')?.[1];
    if (value !== undefined && said !== null) values.set(value.toLowerCase(), said);
  }
  if (message === null && isObject(body)) message = str(body.detail);
  return { values, otherParameter, message };
}

/** `x-rate-limit-*` from any X response; the reset is in epoch seconds. https://docs.x.com/x-api/fundamentals/rate-limits */
export function readRateLimit(headers: Headers): RateLimitInfo | null {
  const limit = intHeader(headers, 'x-rate-limit-limit');
  const remaining = intHeader(headers, 'x-rate-limit-remaining');
  const reset = intHeader(headers, 'x-rate-limit-reset');
  if (limit === null || remaining === null || reset === null) return null;
  return { limit, remaining, resetAt: reset * 1000 };
}

/** The `detail` (or `title`) of a whole-request problem body, for error messages. */
export function problemText(body: unknown): string | null {
  if (!isObject(body)) return null;
  const first = list(body.errors)[0];
  return str(body.detail) ?? str(body.title) ?? (isObject(first) ? str(first.message) ?? str(first.detail) : null);
}
