// The Bluesky client: profiles, author feeds, post lookups and follower pages read from the public
// AppView over XRPC (no credentials), each in a file of its own (bluesky-profiles, bluesky-feed,
// bluesky-posts, bluesky-followers)
// over one request path (bluesky-xrpc), composed here into perch's platform interface.
import { readAuthorFeed } from './bluesky-feed.ts';
import { BLUESKY_FOLLOWER_PAGE, readBlueskyFollowers } from './bluesky-followers.ts';
import { lookupBlueskyPosts, BLUESKY_POST_BATCH_SIZE } from './bluesky-posts.ts';
import { BLUESKY_BATCH_SIZE, lookupProfiles } from './bluesky-profiles.ts';
import type { BlueskyConnection } from './bluesky-xrpc.ts';
import type { PlatformClient } from './types.ts';

export { BLUESKY_BATCH_SIZE } from './bluesky-profiles.ts';

export interface BlueskyClientOptions {
  /** The AppView, e.g. https://public.api.bsky.app (tests: the local simulator). */
  baseUrl: string;
  timeoutMs?: number;
  maxBytes?: number;
  now?: () => number;
}

export function createBlueskyClient(options: BlueskyClientOptions): PlatformClient {
  const connection: BlueskyConnection = {
    base: options.baseUrl.replace(/\/+$/, ''),
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: options.maxBytes ?? 5 * 1024 * 1024,
    now: options.now ?? Date.now,
  };
  return {
    platform: 'bluesky',
    batchSize: BLUESKY_BATCH_SIZE,
    postBatchSize: BLUESKY_POST_BATCH_SIZE,
    configured: true,
    // The AppView rate-limits a client as a whole, whatever the endpoint.
    rateLimitGroups: {
      lookup_by_name: 'appview',
      lookup_by_id: 'appview',
      posts: 'appview',
      post_lookup: 'appview',
      followers: 'appview',
    },
    // The public AppView limits by client address; sharing one window across hosts is the safe side.
    rateLimitScope: 'public',
    lookupByUsernames: (names, call = {}) => lookupProfiles(connection, names, false, call),
    lookupByIds: (ids, call = {}) => lookupProfiles(connection, ids, true, call),
    fetchPosts: (userId, sinceId, limit, call = {}) => readAuthorFeed(connection, userId, sinceId, limit, call),
    lookupPosts: (uris, call = {}) => lookupBlueskyPosts(connection, uris, call),
    followerPageSize: BLUESKY_FOLLOWER_PAGE,
    fetchFollowers: (did, cursor, call = {}) => readBlueskyFollowers(connection, did, cursor, call),
  };
}
