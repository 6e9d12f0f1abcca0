// A local X API v2 over real HTTP for tests, the demo and benchmarks: `GET /2/users/by`, `GET /2/users`,
// `GET /2/users/:id/tweets`, `GET /2/users/:id/followers` and `GET /2/tweets` in X's wire format (https://api.x.com/2/openapi.json),
// with bearer auth, per-endpoint rate limits, scripted faults, a request log, and X's pay-per-use
// bill: every user and post returned in `data` is billable once per UTC day (X deduplicates a
// resource read again the same day).
import { badParameters } from './x-parameters.ts';
import type { XEndpoint } from './x-types.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  applyFault,
  Faults,
  listen,
  RateWindows,
  realClock,
  sendJson,
  type FakeClock,
  type LoggedRequest,
} from './fake-kit.ts';
import { lookupBody, timelineBody, tweetsBody } from './x-render.ts';
import { followersBody } from './x-followers.ts';
import {
  XWorld,
  type FakeXPost,
  type FakeXUser,
  type NewXPost,
  type NewXUser,
  type XPostPatch,
  type XUserPatch,
} from './x-world.ts';

export type { FakeXPost, FakeXUser, NewXPost, NewXUser, XPostPatch, XUserPatch } from './x-world.ts';

/** The rate-limited endpoints: `/2/users/by`, `/2/users`, `/2/users/:id/tweets`, `/2/users/:id/followers`, `/2/tweets`. */
export type { XEndpoint } from './x-types.ts';

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
  /** What X would bill: distinct users and posts returned per UTC day (of the fake's clock). */
  bill(): Map<string, { users: number; posts: number }>;
  /** Clears the request log, lookup counts and the 429 count (not the bill). */
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
  /** `followerId` follows `userId` (GET /2/users/:id/followers lists it first); false if it did. */
  follow(followerId: string, userId: string): boolean;
  unfollow(followerId: string, userId: string): boolean;
  /** `n` new users `${prefix}0`… who follow `userId`. */
  addFollowers(userId: string, n: number, prefix: string): FakeXUser[];
}

// Bodies as X sends them (observed responses; X answers these with its generic problem shape).
const UNAUTHORIZED = { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' };
const TOO_MANY_REQUESTS = { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 };
const NOT_FOUND = { title: 'Not Found Error', type: 'about:blank', status: 404, detail: 'Not Found' };
const PROBLEM = { 'content-type': 'application/problem+json' };
const ENDPOINTS: Readonly<Record<string, XEndpoint>> = {
  '/2/users/by': 'users_by',
  '/2/users': 'users',
  '/2/tweets': 'tweets_by_ids',
};

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
  const billed = new Map<string, { users: Set<string>; posts: Set<string> }>();

  /** Adds the resources of a 200's `data` to the day's bill; a resource already on it costs nothing. */
  const charge = (endpoint: XEndpoint, body: Record<string, unknown>): Record<string, unknown> => {
    const data = Array.isArray(body.data) ? (body.data as { id?: unknown }[]) : [];
    const day = new Date(clock.now()).toISOString().slice(0, 10);
    const bill = billed.get(day) ?? { users: new Set<string>(), posts: new Set<string>() };
    billed.set(day, bill);
    const kind = endpoint === 'tweets' || endpoint === 'tweets_by_ids' ? bill.posts : bill.users;
    for (const item of data) if (typeof item.id === 'string') kind.add(item.id);
    return body;
  };

  const countLookup = (user: FakeXUser): void => {
    lookupCounts.set(user.id, (lookupCounts.get(user.id) ?? 0) + 1);
  };

  function answer(req: IncomingMessage, res: ServerResponse, url: URL): number {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): number => {
      sendJson(res, status, body, headers);
      return status;
    };
    const timeline = /^\/2\/users\/([^/]+)\/(tweets|followers)$/.exec(url.pathname);
    const endpoint: XEndpoint | null =
      ENDPOINTS[url.pathname] ?? (timeline ? (timeline[2] === 'followers' ? 'followers' : 'tweets') : null);
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
      if (fake.rateLimitHeaders === 'retry-after')
        headers['retry-after'] = String(Math.max(1, Math.ceil((window.state.resetAt - clock.now()) / 1000)));
      return send(429, TOO_MANY_REQUESTS, { ...headers, ...PROBLEM });
    }

    const pathId = timeline?.[1] ?? null;
    const invalid = badParameters(endpoint, url.searchParams, pathId);
    if (invalid !== null) return send(400, invalid, { ...headers, ...PROBLEM });
    if (endpoint === 'tweets')
      return send(200, charge(endpoint, timelineBody(world, pathId ?? '', url.searchParams)), headers);
    if (endpoint === 'followers')
      return send(
        200,
        charge(endpoint, followersBody(world, pathId ?? '', url.searchParams, fake.usePostCountField)),
        headers,
      );
    if (endpoint === 'tweets_by_ids') return send(200, charge(endpoint, tweetsBody(world, url.searchParams)), headers);
    const users = lookupBody(world, endpoint, url.searchParams, fake.usePostCountField, countLookup);
    return send(200, charge(endpoint, users), headers);
  }

  const server = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake-x.invalid');
    const entry: LoggedRequest = {
      at: clock.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      status: 0,
    };
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
    bill: () =>
      new Map([...billed].map(([day, bill]) => [day, { users: bill.users.size, posts: bill.posts.size }] as const)),
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
    follow: (followerId, userId) => world.follow(followerId, userId),
    unfollow: (followerId, userId) => world.unfollow(followerId, userId),
    addFollowers: (userId, n, prefix) => world.addFollowers(userId, n, prefix),
  };
  return fake;
}
