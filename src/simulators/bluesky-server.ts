// A local Bluesky AppView over real HTTP: getProfiles, getProfile, getAuthorFeed, getPosts and getFollowers
// in the XRPC wire format of the lexicons (lexicons/app/bsky/{actor,feed,graph}), with atproto's ratelimit-*
// headers, scripted faults and a request log. The world it serves is scripted through BlueskyWorld.
import { HANDLE, DID, AT_URI, xrpcError, type Answer } from './bluesky-xrpc.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { feedFilter, postView, profileViewBasic, profileViewDetailed } from './bluesky-views.ts';
import { firstOlder, type BlueskyPost, type BlueskyUser, type FeedEntry } from './bluesky-world.ts';
import { BlueskyFollowWorld } from './bluesky-follows.ts';
import {
  applyFault,
  Faults,
  listen,
  RateWindows,
  realClock,
  sendJson,
  type FakeClock,
  type Listening,
  type LoggedRequest,
} from './fake-kit.ts';

export type BlueskyEndpoint = 'getProfiles' | 'getProfile' | 'getAuthorFeed' | 'getPosts' | 'getFollowers';

export interface FakeBlueskyOptions {
  clock?: FakeClock;
  /** `ratelimit`: ratelimit-* headers as atproto's xrpc-server sends them; `retry-after`: only Retry-After on a 429. */
  rateLimitHeaders?: 'ratelimit' | 'retry-after';
}

const PATHS: Record<string, BlueskyEndpoint> = {
  '/xrpc/app.bsky.actor.getProfiles': 'getProfiles',
  '/xrpc/app.bsky.actor.getProfile': 'getProfile',
  '/xrpc/app.bsky.feed.getAuthorFeed': 'getAuthorFeed',
  '/xrpc/app.bsky.feed.getPosts': 'getPosts',
  '/xrpc/app.bsky.graph.getFollowers': 'getFollowers',
};

export class FakeBluesky extends BlueskyFollowWorld {
  /** Base URL, e.g. http://127.0.0.1:41234. */
  url = '';
  /** Every request received, in order, with the fake clock's time. */
  readonly requests: LoggedRequest[] = [];
  readonly faults = new Faults();
  rateLimitHeaders: 'ratelimit' | 'retry-after';
  /** 429s sent so far. */
  tooManyRequests = 0;
  private readonly windows: RateWindows;
  private readonly windowSeconds = new Map<BlueskyEndpoint, number>();
  private readonly lookups = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();
  private listening: Listening | null = null;

  constructor(options: FakeBlueskyOptions = {}) {
    super(options.clock ?? realClock);
    // The AppView sends ratelimit-* on every response; without a limit set, the window is out of reach.
    this.windows = new RateWindows(this.clock, { limit: 10_000_000, windowMs: 5 * 60_000 });
    this.rateLimitHeaders = options.rateLimitHeaders ?? 'ratelimit';
  }

  async start(): Promise<this> {
    this.listening = await listen((req, res) => this.handle(req, res), this.hanging);
    this.url = this.listening.url;
    return this;
  }

  async close(): Promise<void> {
    await this.listening?.close();
  }

  /** Limits one endpoint to `limit` requests per window (Bluesky's public default is 3000 per 300 s); null lifts it. */
  setRateLimit(endpoint: BlueskyEndpoint, limit: number | null, windowMs = 300_000): void {
    this.windows.set(endpoint, limit, windowMs);
    this.windowSeconds.set(endpoint, Math.floor(windowMs / 1000));
  }

  /** How often an actor (as requested, lower-cased) was asked for by getProfiles or getProfile. */
  lookupCount(actor: string): number {
    return this.lookups.get(actor.toLowerCase()) ?? 0;
  }

  /** The logged requests to one endpoint. */
  requestsTo(endpoint: BlueskyEndpoint): LoggedRequest[] {
    return this.requests.filter((r) => PATHS[r.path] === endpoint);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const logged: LoggedRequest = {
      at: this.clock.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      status: 200,
    };
    this.requests.push(logged);
    const fault = this.faults.next(url.pathname);
    if (fault) {
      logged.status = applyFault(fault, res, this.hanging);
      return;
    }
    const endpoint = PATHS[url.pathname];
    let answer: Answer;
    let headers: Record<string, string> = {};
    if (!endpoint) answer = xrpcError(501, 'Method Not Implemented', 'MethodNotImplemented');
    else if (req.method !== 'GET') answer = xrpcError(400, `Incorrect HTTP method (${req.method}) expected GET`);
    else {
      const window = this.windows.take(endpoint);
      if (window && this.rateLimitHeaders === 'ratelimit') {
        // xrpc-server: reset in epoch seconds, policy `<limit>;w=<window seconds>`.
        headers = {
          'ratelimit-limit': String(window.state.limit),
          'ratelimit-remaining': String(window.state.remaining),
          'ratelimit-reset': String(Math.floor(window.state.resetAt / 1000)),
          'ratelimit-policy': `${window.state.limit};w=${this.windowSeconds.get(endpoint) ?? 300}`,
        };
      }
      if (window && !window.allowed) {
        this.tooManyRequests += 1;
        if (this.rateLimitHeaders === 'retry-after')
          headers = { 'retry-after': String(Math.max(1, Math.ceil((window.state.resetAt - this.clock.now()) / 1000))) };
        answer = xrpcError(429, 'Rate Limit Exceeded', 'RateLimitExceeded');
      } else {
        answer = this.answer(endpoint, url.searchParams);
      }
    }
    logged.status = answer.status;
    sendJson(res, answer.status, answer.body, headers);
  }

  private answer(endpoint: BlueskyEndpoint, params: URLSearchParams): Answer {
    if (endpoint === 'getProfiles') return this.getProfiles(params.getAll('actors'));
    if (endpoint === 'getPosts') return this.getPosts(params.getAll('uris'));
    if (endpoint === 'getFollowers') return this.getFollowers(params);
    const actor = params.get('actor');
    if (actor === null) return xrpcError(400, 'Params must have the property "actor"');
    if (!HANDLE.test(actor) && !DID.test(actor)) return xrpcError(400, 'Params/actor must be a valid did or a handle');
    return endpoint === 'getProfile' ? this.getProfile(actor) : this.getAuthorFeed(actor, params);
  }

  private count(actor: string): void {
    const key = actor.toLowerCase();
    this.lookups.set(key, (this.lookups.get(key) ?? 0) + 1);
  }

  /** Leaves out, silently, every actor it cannot show (packages/bsky/src/api/app/bsky/actor/getProfiles.ts). */
  private getProfiles(actors: string[]): Answer {
    if (actors.length === 0) return xrpcError(400, 'Params must have the property "actors"');
    if (actors.length > 25) return xrpcError(400, 'Params/actors must not have more than 25 elements');
    const bad = actors.findIndex((a) => !HANDLE.test(a) && !DID.test(a));
    if (bad >= 0) return xrpcError(400, `Params/actors/${bad} must be a valid did or a handle`);
    const profiles = new Map<string, unknown>();
    for (const actor of actors) {
      this.count(actor);
      const user = this.resolve(actor);
      if (user && user.status === 'active') profiles.set(user.did, profileViewDetailed(user));
    }
    return { status: 200, body: { profiles: [...profiles.values()] } };
  }

  /**
   * Post views in the order asked, leaving out, without a word, every post it cannot show (deleted,
   * or its author taken down or deactivated): packages/bsky/src/api/app/bsky/feed/getPosts.ts.
   */
  private getPosts(uris: string[]): Answer {
    if (uris.length === 0) return xrpcError(400, 'Params must have the property "uris"');
    if (uris.length > 25) return xrpcError(400, 'Params/uris must not have more than 25 elements');
    const bad = uris.findIndex((uri) => !AT_URI.test(uri));
    if (bad >= 0) return xrpcError(400, `Params/uris/${bad} must be a valid at-uri`);
    const posts = new Map<string, unknown>();
    for (const uri of uris) {
      const post = this.post(uri);
      const author = post ? this.users.get(post.did) : undefined;
      if (post && author?.status === 'active') posts.set(uri, postView(post, author));
    }
    return { status: 200, body: { posts: [...posts.values()] } };
  }

  /** Says why a profile cannot be shown (packages/bsky/src/api/app/bsky/actor/getProfile.ts). */
  private getProfile(actor: string): Answer {
    this.count(actor);
    const user = this.resolve(actor);
    if (!user) return xrpcError(400, 'Profile not found');
    if (user.status === 'takendown') return xrpcError(400, 'Account has been suspended', 'AccountTakedown');
    if (user.status === 'deactivated') return xrpcError(400, 'Account is deactivated', 'AccountDeactivated');
    return { status: 200, body: profileViewDetailed(user) };
  }

  private getAuthorFeed(actor: string, params: URLSearchParams): Answer {
    const rawLimit = params.get('limit') ?? '50';
    if (!/^-?\d+$/.test(rawLimit)) return xrpcError(400, 'Params/limit must be an integer');
    const limit = Number(rawLimit);
    if (limit > 100) return xrpcError(400, 'Params/limit can not be greater than 100');
    if (limit < 1) return xrpcError(400, 'Params/limit can not be less than 1');
    const user = this.resolve(actor);
    if (!user || user.status !== 'active') return xrpcError(400, 'Profile not found');
    const feed = this.feeds.get(user.did) ?? [];
    const cursor = params.get('cursor');
    let start = 0;
    if (cursor !== null) {
      const match = /^(\d+)::(\d+)$/.exec(cursor);
      // The AppView answers a clearly bad cursor with an empty page rather than an error.
      if (!match) return { status: 200, body: { feed: [] } };
      start = firstOlder(feed, Number(match[1]), Number(match[2]));
    }
    const keep = feedFilter(params.get('filter'), this);
    const items: unknown[] = [];
    // includePins puts the pinned post first on the first page, flagged reasonPin, and drops
    // it from that page only: later pages may still carry it.
    const pinned =
      cursor === null && params.get('includePins') === 'true' && user.pinned !== null ? this.post(user.pinned) : null;
    if (pinned) items.push({ post: postView(pinned, user), reason: { $type: 'app.bsky.feed.defs#reasonPin' } });
    let last: FeedEntry | null = null;
    let i = start;
    for (; i < feed.length && items.length < limit; i += 1) {
      const entry = feed[i] as FeedEntry;
      last = entry;
      const post = this.post(entry.postUri);
      const author = post ? this.users.get(post.did) : undefined;
      if (!post || !author || !keep(entry, post) || (pinned && entry.repost === null && post.uri === pinned.uri))
        continue;
      items.push(this.feedViewPost(entry, post, author, user));
    }
    const body: Record<string, unknown> = { feed: items };
    if (last && i < feed.length) body.cursor = `${last.sortAt}::${last.seq}`;
    return { status: 200, body };
  }

  private feedViewPost(entry: FeedEntry, post: BlueskyPost, author: BlueskyUser, owner: BlueskyUser): unknown {
    const view: Record<string, unknown> = { post: postView(post, author) };
    if (post.replyParent !== null) {
      const ref = (uri: string | null) => {
        const target = uri === null ? null : this.post(uri);
        const targetAuthor = target ? this.users.get(target.did) : undefined;
        return target && targetAuthor
          ? { $type: 'app.bsky.feed.defs#postView', ...postView(target, targetAuthor) }
          : { $type: 'app.bsky.feed.defs#notFoundPost', uri, notFound: true };
      };
      view.reply = { root: ref(post.replyRoot), parent: ref(post.replyParent) };
    }
    if (entry.repost)
      view.reason = { $type: 'app.bsky.feed.defs#reasonRepost', by: profileViewBasic(owner), ...entry.repost };
    return view;
  }
}

/** Starts a fake AppView on a random local port. */
export async function startFakeBluesky(options: FakeBlueskyOptions = {}): Promise<FakeBluesky> {
  return new FakeBluesky(options).start();
}
