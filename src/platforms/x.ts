// The X API v2 client: user lookups by name (`GET /2/users/by`) and id (`GET /2/users`) and user
// timelines (`GET /2/users/:id/tweets`), with X's per-item errors and rate-limit headers mapped
// into perch's platform shapes. https://docs.x.com/x-api/users/get-users-by-usernames
import { createHash } from 'node:crypto';
import { getJson, parseRetryAfter, intHeader, type HttpResponse } from './http.ts';
import { PlatformError, type CallResult, type LookupOutcome, type PlatformClient, type PlatformPost, type RateLimitInfo } from './types.ts';
import { parseInvalidRequest, parseTimelinePage, parseUsersPage, problemText, readRateLimit, outcomeOfProblem, TWEET_FIELDS, USER_FIELDS } from './x-wire.ts';

export interface XClientOptions {
  baseUrl: string;
  /** App-only bearer token; null leaves the client unconfigured. */
  bearerToken: string | null;
  timeoutMs?: number;
  maxBytes?: number;
  /** Epoch ms; used to turn a `Retry-After` delta into a time. */
  now?: () => number;
}

/** X takes up to 100 names or ids per lookup request. */
const BATCH_SIZE = 100;
/** A timeline page holds 5 to 100 posts. */
const MIN_PAGE = 5;
const MAX_PAGE = 100;
/** When X answers 429 with neither a reset header nor Retry-After. */
const DEFAULT_RETRY_MS = 60_000;

type LookupParameter = 'usernames' | 'ids';

/**
 * A call that sends several requests has already been billed for the reads of the earlier ones
 * when a later one fails; the error carries them so the caller's read budget stays true.
 */
function withReads(error: unknown, reads: number): unknown {
  if (!(error instanceof PlatformError) || reads === 0) return error;
  const { kind, message, status, retryAt, rateLimit, cause } = error;
  return new PlatformError(kind, message, { status, retryAt, rateLimit, cause, reads });
}

export function createXClient(options: XClientOptions): PlatformClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const now = options.now ?? Date.now;
  const token = options.bearerToken;

  async function get(pathAndQuery: string, signal: AbortSignal | undefined): Promise<{ response: HttpResponse; rateLimit: RateLimitInfo | null }> {
    if (token === null) throw new PlatformError('unauthorized', 'no X bearer token is configured');
    const response = await getJson(baseUrl + pathAndQuery, { headers: { authorization: `Bearer ${token}` }, timeoutMs, maxBytes, signal });
    return { response, rateLimit: readRateLimit(response.headers) };
  }

  /** Throws the PlatformError a non-2xx status (or an unreadable 2xx body) stands for. */
  function failUnlessOk(response: HttpResponse, rateLimit: RateLimitInfo | null): void {
    const { status } = response;
    if (status >= 200 && status < 300) {
      if (response.invalidJson) throw new PlatformError('bad_response', 'X answered invalid JSON', { status, rateLimit });
      return;
    }
    const detail = problemText(response.json);
    const said = detail === null ? '' : `: ${detail}`;
    if (status === 429) {
      const reset = intHeader(response.headers, 'x-rate-limit-reset');
      const retryAt = reset !== null ? reset * 1000 : parseRetryAfter(response.headers.get('retry-after'), now()) ?? now() + DEFAULT_RETRY_MS;
      throw new PlatformError('rate_limited', 'X rate limit reached', { status, retryAt, rateLimit });
    }
    if (status === 401 || status === 403) throw new PlatformError('unauthorized', `X refused the credentials (${status})${said}`, { status, rateLimit });
    if (status >= 500) throw new PlatformError('unavailable', `X answered ${status}`, { status, rateLimit });
    if (status >= 400) throw new PlatformError('invalid_request', `X refused the request (${status})${said}`, { status, rateLimit });
    throw new PlatformError('bad_response', `X answered an unexpected status ${status}`, { status, rateLimit });
  }

  /**
   * One or more requests for `values`. X answers a whole batch with 400 when one value is
   * malformed; those values become `invalid` and the rest is asked again, so one bad name never
   * fails its batch. When the 400 does not say which value it means, the batch is halved.
   */
  async function lookup(path: string, parameter: LookupParameter, values: readonly string[], signal: AbortSignal | undefined): Promise<CallResult<Map<string, LookupOutcome>>> {
    const outcomes = new Map<string, LookupOutcome>();
    const wanted = new Map<string, string>();
    for (const value of values) {
      const key = value.toLowerCase();
      if (wanted.has(key) || outcomes.has(key)) continue;
      // A comma would split into two values on the wire; an empty value is no value at all.
      if (value.trim() === '' || value.includes(',')) outcomes.set(key, { kind: 'invalid', reason: `not a valid X ${parameter === 'ids' ? 'id' : 'username'}` });
      else wanted.set(key, value);
    }
    const queue: string[][] = [];
    const all = [...wanted.values()];
    for (let i = 0; i < all.length; i += BATCH_SIZE) queue.push(all.slice(i, i + BATCH_SIZE));
    let rateLimit: RateLimitInfo | null = null;
    let reads = 0;

    /** One request for `batch`: records its outcomes (or queues what to ask again) and returns the reads X billed. */
    async function lookupBatch(batch: string[]): Promise<number> {
      const query = `${parameter}=${batch.map(encodeURIComponent).join(',')}&user.fields=${USER_FIELDS}`;
      const answer = await get(`${path}?${query}`, signal);
      rateLimit = answer.rateLimit ?? rateLimit;
      const { response } = answer;
      if (response.status === 400) {
        const refused = parseInvalidRequest(response.json, parameter);
        if (refused.otherParameter !== null) {
          throw new PlatformError('invalid_request', `X refused the request: ${refused.message ?? refused.otherParameter}`, { status: 400, rateLimit });
        }
        const named = batch.filter((value) => refused.values.has(value.toLowerCase()));
        if (named.length > 0) {
          for (const value of named) outcomes.set(value.toLowerCase(), { kind: 'invalid', reason: refused.values.get(value.toLowerCase()) ?? 'refused by X' });
          const rest = batch.filter((value) => !refused.values.has(value.toLowerCase()));
          if (rest.length > 0) queue.unshift(rest);
        } else if (batch.length === 1) {
          outcomes.set(batch[0]!.toLowerCase(), { kind: 'invalid', reason: refused.message ?? 'refused by X' });
        } else {
          const half = Math.ceil(batch.length / 2);
          queue.unshift(batch.slice(0, half), batch.slice(half));
        }
        return 0;
      }
      failUnlessOk(response, rateLimit);
      const page = parseUsersPage(response.json);
      const keyOf = (id: string | null, username: string | null): string | null => (parameter === 'ids' ? id : username?.toLowerCase() ?? null);
      for (const user of page.users) {
        const key = keyOf(user.platformUserId, user.username);
        if (key !== null && wanted.has(key)) outcomes.set(key, { kind: 'found', user });
      }
      // A malformed user is this key's problem only; one the key cannot be read from is left to the
      // "neither a user nor an error" rule below.
      for (const record of page.unusable) {
        const key = keyOf(record.id, record.username);
        if (key !== null && wanted.has(key) && !outcomes.has(key)) outcomes.set(key, { kind: 'unknown', reason: `the platform sent an unusable record: ${record.reason}` });
      }
      for (const problem of page.problems) {
        const key = problem.value?.toLowerCase();
        if (key !== undefined && wanted.has(key) && !outcomes.has(key)) outcomes.set(key, outcomeOfProblem(problem));
      }
      for (const value of batch) {
        const key = value.toLowerCase();
        if (!outcomes.has(key)) outcomes.set(key, { kind: 'unknown', reason: 'X answered neither a user nor an error for it' });
      }
      return page.returned;
    }

    try {
      for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
        reads += await lookupBatch(batch);
      }
    } catch (error) {
      throw withReads(error, reads);
    }
    return { value: outcomes, rateLimit, reads };
  }

  async function fetchPosts(userId: string, sinceId: string | null, limit: number, signal?: AbortSignal): Promise<CallResult<PlatformPost[]>> {
    const posts: PlatformPost[] = [];
    let rateLimit: RateLimitInfo | null = null;
    let reads = 0;
    let pageToken: string | null = null;
    try {
      // Pages are sized by what X returns (and bills), not by the posts kept, so a skipped malformed
      // post never costs another request.
      while (reads < limit) {
        const size = Math.min(MAX_PAGE, Math.max(MIN_PAGE, limit - reads));
        let query = `max_results=${size}&tweet.fields=${TWEET_FIELDS}`;
        if (sinceId !== null) query += `&since_id=${encodeURIComponent(sinceId)}`;
        if (pageToken !== null) query += `&pagination_token=${encodeURIComponent(pageToken)}`;
        const answer = await get(`/2/users/${encodeURIComponent(userId)}/tweets?${query}`, signal);
        rateLimit = answer.rateLimit ?? rateLimit;
        failUnlessOk(answer.response, rateLimit);
        const page = parseTimelinePage(answer.response.json);
        const problem = page.problems[0];
        // A suspended, deleted or protected author: X answers 200 with only an error; asking again won't help.
        if (page.returned === 0 && problem !== undefined) {
          throw new PlatformError('invalid_request', `X refused the timeline: ${problem.detail ?? problem.title ?? 'no detail'}`, { status: answer.response.status, rateLimit });
        }
        reads += page.returned;
        posts.push(...page.posts);
        pageToken = page.nextToken;
        if (pageToken === null || page.returned === 0) break;
      }
    } catch (error) {
      throw withReads(error, reads);
    }
    return { value: posts.slice(0, Math.max(0, limit)), rateLimit, reads };
  }

  return {
    platform: 'x',
    batchSize: BATCH_SIZE,
    configured: token !== null,
    // Each X endpoint has its own window (x-rate-limit-* per endpoint).
    rateLimitGroups: { lookup_by_name: 'users_by', lookup_by_id: 'users', posts: 'tweets' },
    rateLimitScope: token === null ? 'none' : createHash('sha256').update(token).digest('hex').slice(0, 16),
    lookupByUsernames: (names, signal) => lookup('/2/users/by', 'usernames', names, signal),
    lookupByIds: (ids, signal) => lookup('/2/users', 'ids', ids, signal),
    fetchPosts,
  };
}
