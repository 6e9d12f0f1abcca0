// The Bluesky client: profiles and author feeds read from the public AppView over XRPC (no
// credentials), mapped into perch's platform shapes, with its ratelimit-* headers reported.
import { validateUsername } from '../domain/usernames.ts';
import { getJson, parseRetryAfter, type HttpResponse } from './http.ts';
import { parseFeedPage, parseProfile, parseProfiles, readRateLimit, suspendingLabel, toPlatformPost, toPlatformUser, xrpcError, type ProfileView } from './bluesky-wire.ts';
import { PlatformError, type CallResult, type LookupOutcome, type PlatformClient, type PlatformPost, type RateLimitInfo } from './types.ts';

export interface BlueskyClientOptions {
  /** The AppView, e.g. https://public.api.bsky.app (tests: the local fake). */
  baseUrl: string;
  timeoutMs?: number;
  maxBytes?: number;
  now?: () => number;
}

/** app.bsky.actor.getProfiles takes at most 25 `actors` (lexicon maxLength). */
export const BLUESKY_BATCH_SIZE = 25;
/** getAuthorFeed's `limit` is 1..100. */
const FEED_PAGE_MAX = 100;
/** A feed walk stops here whatever the cursor says, so a looping cursor cannot run away. */
const FEED_MAX_PAGES = 50;
/**
 * `posts_with_replies` (the lexicon default) is every post, reply and repost of the author: the
 * same set as an X user timeline, so `isReply` means the same on both platforms.
 * `posts_and_author_threads` would silently drop the author's replies to others.
 */
const FEED_FILTER = 'posts_with_replies';
// xrpc-server's DID syntax (https://atproto.com/specs/did#at-protocol-did-identifier-syntax).
const DID_SYNTAX = /^did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]$/;

interface Tally {
  rateLimit: RateLimitInfo | null;
  reads: number;
}

interface Wanted {
  key: string;
  actor: string;
}

export function createBlueskyClient(options: BlueskyClientOptions): PlatformClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const http = { timeoutMs: options.timeoutMs ?? 10_000, maxBytes: options.maxBytes ?? 5 * 1024 * 1024 };

  async function xrpc(method: string, params: [string, string][], tally: Tally, signal?: AbortSignal): Promise<HttpResponse> {
    const query = new URLSearchParams(params).toString();
    const response = await getJson(`${base}/xrpc/${method}?${query}`, { ...http, signal });
    // The newest figures win; a response without headers keeps what the previous one said.
    tally.rateLimit = readRateLimit(response.headers, now()) ?? tally.rateLimit;
    return response;
  }

  /** Why a whole request failed, from a non-200 response. */
  function failure(response: HttpResponse, method: string): PlatformError {
    const { status } = response;
    const { error, message } = xrpcError(response.json);
    const detail = `${method}: ${status}${error ? ` ${error}` : ''}${message ? `: ${message}` : ''}`;
    const rateLimit = readRateLimit(response.headers, now());
    if (status === 429) {
      const retryAt = rateLimit?.resetAt ?? parseRetryAfter(response.headers.get('retry-after'), now()) ?? now() + 60_000;
      return new PlatformError('rate_limited', detail, { status, retryAt, rateLimit });
    }
    if (status >= 500) return new PlatformError('unavailable', detail, { status, rateLimit });
    if (status >= 400) return new PlatformError('invalid_request', detail, { status, rateLimit });
    return new PlatformError('bad_response', `${detail} (unexpected status)`, { status, rateLimit });
  }

  /** The JSON of a 200 answer; anything else is thrown as the PlatformError it means. */
  function body(response: HttpResponse, method: string): unknown {
    if (response.status !== 200) throw failure(response, method);
    if (response.invalidJson) throw new PlatformError('bad_response', `${method}: invalid JSON`, { status: 200 });
    return response.json;
  }

  function found(profile: ProfileView): LookupOutcome {
    const label = suspendingLabel(profile);
    return label ? { kind: 'suspended', reason: `labelled ${label}` } : { kind: 'found', user: toPlatformUser(profile) };
  }

  /**
   * getProfiles leaves out, without a word, whatever it cannot show (taken down, deactivated,
   * unknown); getProfile says why (packages/bsky/src/api/app/bsky/actor/getProfile.ts).
   */
  async function explain(actor: string, tally: Tally, signal?: AbortSignal): Promise<LookupOutcome> {
    const method = 'app.bsky.actor.getProfile';
    const response = await xrpc(method, [['actor', actor]], tally, signal);
    if (response.status === 400) {
      const { error, message } = xrpcError(response.json);
      const reason = message ?? error ?? 'rejected';
      if (error === 'AccountTakedown') return { kind: 'suspended', reason };
      if (error === 'AccountDeactivated') return { kind: 'not_found', reason };
      if (/not found/i.test(reason)) return { kind: 'not_found', reason };
      return { kind: 'unknown', reason: `${error ?? 'InvalidRequest'}: ${reason}` };
    }
    const profile = parseProfile(body(response, method));
    if (!profile) throw new PlatformError('bad_response', `${method}: not a profile`, { status: 200 });
    tally.reads += 1;
    return found(profile); // shown after all: it changed between the two requests
  }

  async function lookupBatch(batch: Wanted[], outcomes: Map<string, LookupOutcome>, tally: Tally, signal?: AbortSignal): Promise<void> {
    const method = 'app.bsky.actor.getProfiles';
    const response = await xrpc(method, batch.map((w) => ['actors', w.actor]), tally, signal);
    let missing = batch;
    // A 400 on the batch (an actor the AppView refuses) must not fail the others: each is then
    // asked alone, and only the one at fault ends up unanswered.
    if (response.status !== 400) {
      const profiles = parseProfiles(body(response, method));
      if (!profiles) throw new PlatformError('bad_response', `${method}: no profiles array`, { status: 200 });
      tally.reads += profiles.length;
      // A handle request is answered under the account's current handle and did, so match by
      // handle (case-insensitive) or, when a did was asked for, by did.
      const byDid = new Map(profiles.map((p) => [p.did, p]));
      const byHandle = new Map(profiles.map((p) => [p.handle.toLowerCase(), p]));
      missing = [];
      for (const wanted of batch) {
        const profile = wanted.actor.startsWith('did:') ? byDid.get(wanted.actor) : byHandle.get(wanted.actor);
        if (profile) outcomes.set(wanted.key, found(profile));
        else missing.push(wanted);
      }
    }
    for (const [i, wanted] of missing.entries()) {
      const budget = tally.rateLimit;
      if (budget && budget.remaining <= 0 && budget.resetAt > now()) {
        for (const rest of missing.slice(i)) outcomes.set(rest.key, { kind: 'unknown', reason: 'rate limit reached before the account could be checked' });
        return;
      }
      try {
        outcomes.set(wanted.key, await explain(wanted.actor, tally, signal));
      } catch (error) {
        if (!(error instanceof PlatformError)) throw error;
        // What was already learnt is kept; the rest waits for the next check.
        if (error.kind === 'rate_limited' && error.retryAt !== null) {
          tally.rateLimit = { limit: error.rateLimit?.limit ?? tally.rateLimit?.limit ?? 0, remaining: 0, resetAt: error.retryAt };
        }
        for (const rest of missing.slice(i)) outcomes.set(rest.key, { kind: 'unknown', reason: error.message });
        return;
      }
    }
  }

  async function lookup(requested: readonly string[], byId: boolean, signal?: AbortSignal): Promise<CallResult<Map<string, LookupOutcome>>> {
    const outcomes = new Map<string, LookupOutcome>();
    const tally: Tally = { rateLimit: null, reads: 0 };
    const wanted: Wanted[] = [];
    const keys = new Set<string>();
    for (const raw of requested) {
      const key = byId ? raw : raw.toLowerCase();
      if (keys.has(key)) continue;
      keys.add(key);
      // One malformed actor would make the AppView refuse the whole batch: it is never sent.
      const actor = checkActor(raw, byId);
      if (typeof actor === 'string') wanted.push({ key, actor });
      else outcomes.set(key, actor);
    }
    for (let i = 0; i < wanted.length; i += BLUESKY_BATCH_SIZE) {
      await lookupBatch(wanted.slice(i, i + BLUESKY_BATCH_SIZE), outcomes, tally, signal);
    }
    return { value: outcomes, rateLimit: tally.rateLimit, reads: tally.reads };
  }

  async function fetchPosts(userId: string, sinceId: string | null, wanted: number, signal?: AbortSignal): Promise<CallResult<PlatformPost[]>> {
    const limit = Math.floor(wanted);
    const method = 'app.bsky.feed.getAuthorFeed';
    const tally: Tally = { rateLimit: null, reads: 0 };
    const posts: PlatformPost[] = [];
    if (!DID_SYNTAX.test(userId)) throw new PlatformError('invalid_request', `${method}: ${JSON.stringify(userId)} is not a DID`);
    const seen = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; page < FEED_MAX_PAGES && posts.length < limit; page += 1) {
      const params: [string, string][] = [['actor', userId], ['limit', String(Math.min(FEED_PAGE_MAX, limit - posts.length))], ['filter', FEED_FILTER]];
      if (cursor !== null) params.push(['cursor', cursor]);
      // An unknown or taken-down actor is a 400 "Profile not found": thrown as invalid_request.
      const feed = parseFeedPage(body(await xrpc(method, params, tally, signal), method));
      if (!feed) throw new PlatformError('bad_response', `${method}: no feed array`, { status: 200 });
      for (const item of feed.items) {
        const post = toPlatformPost(item);
        if (!post || seen.has(post.id)) continue;
        // The feed is newest first: the last post seen before is where the new ones end.
        if (post.id === sinceId) return { value: posts, rateLimit: tally.rateLimit, reads: posts.length };
        seen.add(post.id);
        posts.push(post);
        if (posts.length >= limit) break;
      }
      if (feed.cursor === null || feed.cursor === cursor || feed.items.length === 0) break;
      cursor = feed.cursor;
    }
    return { value: posts, rateLimit: tally.rateLimit, reads: posts.length };
  }

  return {
    platform: 'bluesky',
    batchSize: BLUESKY_BATCH_SIZE,
    configured: true,
    // The AppView rate-limits a client as a whole, whatever the endpoint.
    rateLimitGroups: { lookup_by_name: 'appview', lookup_by_id: 'appview', posts: 'appview' },
    // The public AppView limits by client address; sharing one window across hosts is the safe side.
    rateLimitScope: 'public',
    lookupByUsernames: (names, signal) => lookup(names, false, signal),
    lookupByIds: (ids, signal) => lookup(ids, true, signal),
    fetchPosts,
  };
}

/** The actor to send, or the `invalid` outcome for a value the AppView would refuse. */
function checkActor(raw: string, byId: boolean): string | LookupOutcome {
  if (byId || raw.toLowerCase().startsWith('did:')) {
    // A DID given as a name is compared case-insensitively like every name; an id is taken as is.
    const did = byId ? raw : raw.toLowerCase();
    return DID_SYNTAX.test(did) && did.length <= 2048 ? did : { kind: 'invalid', reason: 'not a valid DID' };
  }
  const check = validateUsername('bluesky', raw);
  return check.ok ? check.username : { kind: 'invalid', reason: check.reason };
}
