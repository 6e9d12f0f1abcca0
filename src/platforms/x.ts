// The X API v2 client: user lookups by name and id, user timelines, post lookups and follower pages,
// each in a file of its own (x-users, x-timeline, x-tweets, x-followers) over one request path (x-request), composed here
// into perch's platform interface.
import { createHash } from 'node:crypto';
import type { PlatformClient } from './types.ts';
import { readXFollowers, X_FOLLOWER_PAGE } from './x-followers.ts';
import { readTimeline } from './x-timeline.ts';
import type { XConnection } from './x-request.ts';
import { lookupTweets, X_POST_BATCH_SIZE } from './x-tweets.ts';
import { lookupUsers, X_BATCH_SIZE } from './x-users.ts';

export interface XClientOptions {
  baseUrl: string;
  /** App-only bearer token; null leaves the client unconfigured. */
  bearerToken: string | null;
  timeoutMs?: number;
  maxBytes?: number;
  /** Epoch ms; used to turn a `Retry-After` delta into a time. */
  now?: () => number;
}

export function createXClient(options: XClientOptions): PlatformClient {
  const token = options.bearerToken;
  const connection: XConnection = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    token,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: options.maxBytes ?? 5 * 1024 * 1024,
    now: options.now ?? Date.now,
  };
  return {
    platform: 'x',
    batchSize: X_BATCH_SIZE,
    postBatchSize: X_POST_BATCH_SIZE,
    configured: token !== null,
    // Each X endpoint has its own window (x-rate-limit-* per endpoint).
    rateLimitGroups: {
      lookup_by_name: 'users_by',
      lookup_by_id: 'users',
      posts: 'tweets',
      post_lookup: 'tweets_by_ids',
      followers: 'followers',
    },
    rateLimitScope: token === null ? 'none' : createHash('sha256').update(token).digest('hex').slice(0, 16),
    lookupByUsernames: (names, call = {}) => lookupUsers(connection, '/2/users/by', 'usernames', names, call),
    lookupByIds: (ids, call = {}) => lookupUsers(connection, '/2/users', 'ids', ids, call),
    fetchPosts: (userId, sinceId, limit, call = {}) => readTimeline(connection, userId, sinceId, limit, call),
    lookupPosts: (ids, call = {}) => lookupTweets(connection, ids, call),
    followerPageSize: X_FOLLOWER_PAGE,
    fetchFollowers: (userId, cursor, call = {}) => readXFollowers(connection, userId, cursor, call),
  };
}
