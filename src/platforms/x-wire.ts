// X API v2 payloads as perch reads them: unknown JSON narrowed by hand into users, posts, per-item
// problems and rate-limit state. Shapes: https://docs.x.com/x-api/users/get-users-by-usernames,
// https://docs.x.com/x-api/users/get-posts and the problem types in https://api.x.com/2/openapi.json.
import { intHeader, type ResponseHeaders } from './http.ts';
import { PlatformError, type LookupOutcome, type PlatformUser, type RateLimitInfo } from './types.ts';
import { webUrlOrNull } from './web-url.ts';

/** Only the user fields perch stores; `id`, `name` and `username` always come. */
export const USER_FIELDS = 'created_at,description,location,url,profile_image_url,verified,protected,public_metrics';
/** Only the post fields perch stores; `id` and `text` always come. The timeline and post lookups ask for the same. */
export const TWEET_FIELDS = 'created_at,public_metrics,entities,lang,referenced_tweets,in_reply_to_user_id';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/**
 * Every string perch takes from X passes here. NUL (U+0000) is valid in JSON but PostgreSQL text
 * columns refuse it, so it is dropped once, at the edge.
 */
export function str(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  return value.replaceAll('\u0000', '');
}
/** X sends "" for an empty description or url; perch stores null. */
export function text(value: unknown): string | null {
  const string = str(value);
  return string === '' ? null : string;
}
export function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
export function bool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}
export function isoDate(value: unknown): string | null {
  const string = str(value);
  if (string === null) return null;
  const ms = Date.parse(string);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
export function badShape(message: string): PlatformError {
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

export function parseProblem(item: unknown): XProblem | null {
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
  if (problem.title === 'Forbidden' || /^User has been suspended/i.test(problem.detail ?? ''))
    return { kind: 'suspended', reason };
  const notFoundType = problem.type?.endsWith('/resource-not-found') ?? false;
  if (problem.title === 'Not Found Error' || (notFoundType && problem.title === null))
    return { kind: 'not_found', reason };
  return { kind: 'unknown', reason };
}

/** A user X sent, or why perch cannot use it, with as much of its id and username as could be read. */
export type XUserRecord =
  { ok: true; user: PlatformUser } | { ok: false; id: string | null; username: string | null; reason: string };

/** One user item of `data`; a malformed one is reported, not thrown, so it never fails its batch. */
export function parseUser(item: unknown): XUserRecord {
  if (!isObject(item)) return { ok: false, id: null, username: null, reason: 'a user is not an object' };
  const id = text(item.id);
  const username = text(item.username);
  const unusable = (reason: string): XUserRecord => ({ ok: false, id, username, reason });
  if (id === null || username === null) return unusable('a user has no id or username');
  const metrics = item.public_metrics;
  if (!isObject(metrics)) return unusable(`user ${id} has no public_metrics`);
  const followers = count(metrics.followers_count);
  const following = count(metrics.following_count);
  // X has started to call tweet_count post_count in some payloads; either is the same figure.
  const posts = count(metrics.tweet_count) ?? count(metrics.post_count);
  if (followers === null || following === null || posts === null)
    return unusable(`user ${id} has missing or invalid public_metrics`);
  const user: PlatformUser = {
    platformUserId: id,
    username,
    profile: {
      displayName: text(item.name),
      description: text(item.description),
      location: text(item.location),
      url: webUrlOrNull(text(item.url)),
      profileImageUrl: webUrlOrNull(text(item.profile_image_url)),
      verified: bool(item.verified),
      protected: bool(item.protected),
      createdAt: isoDate(item.created_at),
    },
    followers,
    following,
    posts,
    listed: count(metrics.listed_count),
  };
  return { ok: true, user };
}

export type XUnusableUser = Extract<XUserRecord, { ok: false }>;

/**
 * The two halves of an X v2 answer: `data` (what was found) and `errors` (what was not, outside
 * `includes`); either may be absent, but not both. Only a wrong overall shape throws.
 */
export function splitPage(body: unknown): { data: unknown[]; problems: XProblem[] } {
  if (!isObject(body)) throw badShape('the body is not a JSON object');
  if (body.data === undefined && body.errors === undefined) throw badShape('neither data nor errors');
  if (body.data !== undefined && !Array.isArray(body.data)) throw badShape('data is not an array');
  if (body.errors !== undefined && !Array.isArray(body.errors)) throw badShape('errors is not an array');
  const problems = list(body.errors)
    .map(parseProblem)
    .filter((p): p is XProblem => p !== null && p.section !== 'includes');
  const data = list(body.data);
  return { data, problems };
}

/**
 * A 200 from `/2/users/by` or `/2/users`: found users in `data`, the others in `errors` (both
 * optional). Only a wrong overall shape throws; a malformed user lands in `unusable`. `returned`
 * counts every item of `data`, usable or not, since X bills each one.
 */
export function parseUsersPage(body: unknown): {
  users: PlatformUser[];
  unusable: XUnusableUser[];
  problems: XProblem[];
  returned: number;
} {
  const { data, problems } = splitPage(body);
  const users: PlatformUser[] = [];
  const unusable: XUnusableUser[] = [];
  for (const item of data) {
    const record = parseUser(item);
    if (record.ok) users.push(record.user);
    else unusable.push(record);
  }
  return { users, unusable, problems, returned: data.length };
}

/**
 * Reads a 400 `invalid-request` body. X names each malformed value in a message such as
 * "The `usernames` query parameter value [bad.name] does not match ^[A-Za-z0-9_]{1,15}$", while
 * `parameters` carries the whole comma-separated list, so the message is what tells values apart.
 */
export function parseInvalidRequest(
  body: unknown,
  parameter: string,
): { values: Map<string, string>; otherParameter: string | null; message: string | null } {
  const values = new Map<string, string>();
  let otherParameter: string | null = null;
  let message: string | null = null;
  const errors = isObject(body) ? list(body.errors) : [];
  for (const error of errors) {
    if (!isObject(error)) continue;
    const said = str(error.message) ?? str(error.detail);
    message ??= said;
    const named =
      /`([^`]+)`/.exec(said ?? '')?.[1] ?? (isObject(error.parameters) ? Object.keys(error.parameters)[0] : undefined);
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
export function readRateLimit(headers: ResponseHeaders): RateLimitInfo | null {
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
  return str(body.detail) ?? str(body.title) ?? (isObject(first) ? (str(first.message) ?? str(first.detail)) : null);
}
