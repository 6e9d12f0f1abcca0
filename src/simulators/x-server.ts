// A local X API v2 over real HTTP for tests, the demo and benchmarks: `GET /2/users/by`,
// `GET /2/users`, `GET /2/users/:id/tweets` and `GET /2/tweets` in X's wire format (https://api.x.com/2/openapi.json),
// with bearer auth, per-endpoint rate limits, scripted faults and a request log.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyFault, Faults, listen, RateWindows, realClock, sendJson, type FakeClock, type LoggedRequest } from './fake-kit.ts';
import { fieldSet, lookupBody, readPageToken, timelineBody, tweetsBody } from './x-render.ts';
import { ID_PATTERN, USERNAME_PATTERN, XWorld, type FakeXPost, type FakeXUser, type NewXPost, type NewXUser, type XPostPatch, type XUserPatch } from './x-world.ts';

export type { FakeXPost, FakeXUser, NewXPost, NewXUser, XPostPatch, XUserPatch } from './x-world.ts';

/** The rate-limited endpoints: `/2/users/by`, `/2/users`, `/2/users/:id/tweets`, `/2/tweets`. */
export type XEndpoint = 'users_by' | 'users' | 'tweets' | 'tweets_by_ids';

export interface FakeXOptions {
  clock?: FakeClock;
  /** The only token accepted (`Authorization: Bearer …`); default 'test-x-token'. */
  bearerToken?: string;
  rateLimitHeaders?: 'x-rate-limit' | 'retry-after';
  usePostCountField?: 'tweet_count' | 'post_count';
}

export interface FakeX {
  readonly url: string;
  close(): Promise<void>;
  /** Every request received, oldest first, with the fake clock's time and the status sent. */
  readonly requests: LoggedRequest[];
  readonly faults: Faults;
  /** The users and posts behind the API; the helpers below are shortcuts to it. */
  readonly world: XWorld;
  /** 429s sent since the last resetStats(). */
  readonly tooManyRequests: number;
  /** How many lookup responses carried this user (found or suspended) since the last resetStats(). */
  lookupsOf(userId: string): number;
  /** Clears the request log, lookup counts and the 429 count. */
  resetStats(): void;
  /** How rate limits are announced: X's `x-rate-limit-*` on every response, or only `Retry-After` on 429s. */
  rateLimitHeaders: 'x-rate-limit' | 'retry-after';
  /** The name under which `public_metrics` carries the post count (X is moving to `post_count`). */
  usePostCountField: 'tweet_count' | 'post_count';
  /** `limit` requests per `windowMs` (default 15 min) on one endpoint; null removes the limit. */
  setRateLimit(endpoint: XEndpoint, limit: number | null, windowMs?: number): void;
  addUser(input: NewXUser): FakeXUser;
  /** `n` users named `${prefix}0`…; fast enough for 100,000. */
  addUsers(n: number, prefix?: string, template?: XUserPatch): FakeXUser[];
  user(id: string): FakeXUser;
  updateUser(id: string, patch: XUserPatch): FakeXUser;
  rename(id: string, newName: string): FakeXUser;
  suspend(id: string): void;
  /** Deleted or deactivated: not found by name or id. */
  remove(id: string): void;
  /** Appends a post (newest so far) and bumps the author's post count. */
  addPost(userId: string, input: NewXPost): FakeXPost;
  /** Changes a published post's counts (likes gathered after it was first read). */
  updatePost(id: string, patch: XPostPatch): FakeXPost;
  /** Deletes a post: gone from the timeline and from `GET /2/tweets`. */
  deletePost(id: string): void;
}

// Bodies as X sends them (observed responses; X answers these with its generic problem shape).
const UNAUTHORIZED = { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' };
const TOO_MANY_REQUESTS = { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 };
const NOT_FOUND = { title: 'Not Found Error', type: 'about:blank', status: 404, detail: 'Not Found' };
const PROBLEM = { 'content-type': 'application/problem+json' };
const ENDPOINTS: Readonly<Record<string, XEndpoint>> = { '/2/users/by': 'users_by', '/2/users': 'users', '/2/tweets': 'tweets_by_ids' };

export async function startFakeX(options: FakeXOptions = {}): Promise<FakeX> {
  const clock = options.clock ?? realClock;
  const bearer = `Bearer ${options.bearerToken ?? 'test-x-token'}`;
  const world = new XWorld(clock);
  // X sends x-rate-limit-* on every response; without a limit set, the window is out of reach.
  const windows = new RateWindows(clock, { limit: 10_000_000, windowMs: 15 * 60_000 });
  const faults = new Faults();
  const hanging = new Set<ServerResponse>();
  const requests: LoggedRequest[] = [];
  const lookupCounts = new Map<string, number>();
  let tooManyRequests = 0;

  const countLookup = (user: FakeXUser): void => {
    lookupCounts.set(user.id, (lookupCounts.get(user.id) ?? 0) + 1);
  };

  function answer(req: IncomingMessage, res: ServerResponse, url: URL): number {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): number => {
      sendJson(res, status, body, headers);
      return status;
    };
    const timeline = /^\/2\/users\/([^/]+)\/tweets$/.exec(url.pathname);
    const endpoint: XEndpoint | null = ENDPOINTS[url.pathname] ?? (timeline ? 'tweets' : null);
    if (req.method !== 'GET' || endpoint === null) return send(404, NOT_FOUND, PROBLEM);
    if (req.headers.authorization !== bearer) return send(401, UNAUTHORIZED, PROBLEM);

    const window = windows.take(endpoint);
    const headers: Record<string, string> = {};
    if (window && fake.rateLimitHeaders === 'x-rate-limit') {
      headers['x-rate-limit-limit'] = String(window.state.limit);
      headers['x-rate-limit-remaining'] = String(window.state.remaining);
      headers['x-rate-limit-reset'] = String(Math.ceil(window.state.resetAt / 1000));
    }
    if (window && !window.allowed) {
      tooManyRequests += 1;
      if (fake.rateLimitHeaders === 'retry-after') headers['retry-after'] = String(Math.max(1, Math.ceil((window.state.resetAt - clock.now()) / 1000)));
      return send(429, TOO_MANY_REQUESTS, { ...headers, ...PROBLEM });
    }

    const pathId = timeline?.[1] ?? null;
    const invalid = badParameters(endpoint, url.searchParams, pathId);
    if (invalid !== null) return send(400, invalid, { ...headers, ...PROBLEM });
    if (endpoint === 'tweets') return send(200, timelineBody(world, pathId ?? '', url.searchParams), headers);
    if (endpoint === 'tweets_by_ids') return send(200, tweetsBody(world, url.searchParams), headers);
    return send(200, lookupBody(world, endpoint, url.searchParams, fake.usePostCountField, countLookup), headers);
  }

  const server = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake-x.invalid');
    const entry: LoggedRequest = { at: clock.now(), method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, status: 0 };
    requests.push(entry);
    const fault = faults.next(url.pathname);
    entry.status = fault ? applyFault(fault, res, hanging) : answer(req, res, url);
  }, hanging);

  const fake: FakeX = {
    url: server.url,
    close: () => server.close(),
    requests,
    faults,
    world,
    get tooManyRequests() {
      return tooManyRequests;
    },
    lookupsOf: (userId) => lookupCounts.get(userId) ?? 0,
    resetStats: () => {
      requests.length = 0;
      lookupCounts.clear();
      tooManyRequests = 0;
    },
    rateLimitHeaders: options.rateLimitHeaders ?? 'x-rate-limit',
    usePostCountField: options.usePostCountField ?? 'tweet_count',
    setRateLimit: (endpoint, limit, windowMs) => windows.set(endpoint, limit, windowMs),
    addUser: (input) => world.addUser(input),
    addUsers: (n, prefix, template) => world.addUsers(n, prefix, template),
    user: (id) => world.user(id),
    updateUser: (id, patch) => world.updateUser(id, patch),
    rename: (id, newName) => world.rename(id, newName),
    suspend: (id) => world.suspend(id),
    remove: (id) => world.remove(id),
    addPost: (userId, input) => world.addPost(userId, input),
    updatePost: (id, patch) => world.updatePost(id, patch),
    deletePost: (id) => world.deletePost(id),
  };
  return fake;
}

// Request validation, worded as X words its 400 `invalid-request` problems: one error per bad value,
// `parameters` holding the raw parameter, `message` naming the value.
const USER_FIELDS = 'affiliation,connection_status,created_at,description,entities,id,is_identity_verified,location,most_recent_tweet_id,name,parody,pinned_tweet_id,profile_banner_url,profile_image_url,protected,public_metrics,receives_your_dm,subscription,subscription_type,url,username,verified,verified_followers_count,verified_type,withheld';
const TWEET_FIELDS = 'article,attachments,author_id,card_uri,community_id,context_annotations,conversation_id,created_at,display_text_range,edit_controls,edit_history_tweet_ids,entities,geo,id,in_reply_to_user_id,lang,media_metadata,non_public_metrics,note_tweet,organic_metrics,possibly_sensitive,promoted_metrics,public_metrics,referenced_tweets,reply_settings,scopes,source,text,withheld';
const ALLOWED: Record<XEndpoint, string[]> = {
  users_by: ['usernames', 'expansions', 'tweet.fields', 'user.fields'],
  users: ['ids', 'expansions', 'tweet.fields', 'user.fields'],
  tweets_by_ids: ['ids', 'expansions', 'tweet.fields', 'user.fields', 'media.fields', 'place.fields', 'poll.fields'],
  tweets: ['since_id', 'until_id', 'max_results', 'pagination_token', 'exclude', 'start_time', 'end_time', 'expansions', 'tweet.fields', 'user.fields', 'media.fields', 'place.fields', 'poll.fields'],
};

interface ParameterError {
  parameters: Record<string, string[]>;
  message: string;
}

function badParameters(endpoint: XEndpoint, query: URLSearchParams, pathId: string | null): Record<string, unknown> | null {
  const errors: ParameterError[] = [];
  const error = (name: string, raw: string, message: string): void => {
    errors.push({ parameters: { [name]: [raw] }, message });
  };
  for (const [name, raw] of query) {
    if (!ALLOWED[endpoint].includes(name)) error(name, raw, `The query parameter [${name}] is not one of [${ALLOWED[endpoint].join(',')}]`);
  }
  for (const [name, valid] of [['user.fields', USER_FIELDS], ['tweet.fields', TWEET_FIELDS]] as const) {
    const raw = query.get(name);
    for (const field of fieldSet(raw)) {
      if (!valid.split(',').includes(field)) error(name, raw ?? '', `The \`${name}\` query parameter value [${field}] is not one of [${valid}]`);
    }
  }
  if (endpoint === 'tweets') {
    if (pathId !== null && !ID_PATTERN.test(pathId)) error('id', pathId, `The \`id\` query parameter value [${pathId}] does not match ${ID_PATTERN.source}`);
    const max = query.get('max_results');
    if (max !== null && !(/^[0-9]+$/.test(max) && Number(max) >= 5 && Number(max) <= 100)) error('max_results', max, `The \`max_results\` query parameter value [${max}] is not between 5 and 100`);
    const since = query.get('since_id');
    if (since !== null && !ID_PATTERN.test(since)) error('since_id', since, `The \`since_id\` query parameter value [${since}] does not match ${ID_PATTERN.source}`);
    const token = query.get('pagination_token');
    if (token !== null && readPageToken(token) === null) error('pagination_token', token, `The \`pagination_token\` query parameter value [${token}] is not valid`);
  } else {
    // `/2/tweets` takes `ids` as `/2/users` does: 1 to 100 numeric ids.
    const name = endpoint === 'users_by' ? 'usernames' : 'ids';
    const pattern = endpoint === 'users_by' ? USERNAME_PATTERN : ID_PATTERN;
    const raw = query.get(name) ?? '';
    const values = raw === '' ? [] : raw.split(',');
    if (values.length === 0) error(name, raw, `The \`${name}\` query parameter can not be empty`);
    else if (values.length > 100) error(name, raw, `The number of values in the \`${name}\` query parameter list [${values.length}] is not between 1 and 100`);
    else for (const value of values) if (!pattern.test(value)) error(name, raw, `The \`${name}\` query parameter value [${value}] does not match ${pattern.source}`);
  }
  if (errors.length === 0) return null;
  return { errors, title: 'Invalid Request', detail: 'One or more parameters to your request was invalid.', type: 'https://api.twitter.com/2/problems/invalid-request' };
}
