// Bluesky's Jetstream, the pure parts (DESIGN.md §10): which shard a DID belongs to, how many
// shards a number of DIDs needs, the reconnect backoff, and what an account frame's status means.
import type { AccountStatus } from './account.ts';

/** Most DIDs one shard (one connection, one options_update) carries: Jetstream's own limit. */
export const SHARD_SIZE = 10_000;
/** How long the public Jetstream servers keep events for replay (about 36 h). */
export const JETSTREAM_RETENTION_MS = 36 * 3_600_000;
/** The stream of posts, profiles, identities and statuses (its rows in the store are named so). */
export const POSTS_STREAM = 'posts';
/** The collections the posts stream asks for. */
export const POST_COLLECTION = 'app.bsky.feed.post';
export const PROFILE_COLLECTION = 'app.bsky.actor.profile';
/** The stream of follows (DESIGN §11): one connection on every DID, its row named so. */
export const FOLLOWS_STREAM = 'follows';
export const FOLLOW_COLLECTION = 'app.bsky.graph.follow';

/** FNV-1a over the DID's UTF-16 code units: stable across processes and versions. */
export function didHash(did: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < did.length; i += 1) {
    hash ^= did.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function shardOf(did: string, shards: number): number {
  return didHash(did) % Math.max(1, shards);
}

/**
 * The DIDs split by hash into the fewest shards of at most `size` each (more than the quotient
 * when the hash happens to load one shard past the limit). Each shard's DIDs are sorted.
 */
export function planShards(dids: readonly string[], size = SHARD_SIZE): string[][] {
  const unique = [...new Set(dids)].sort();
  for (let shards = Math.max(1, Math.ceil(unique.length / size)); ; shards += 1) {
    const plan: string[][] = Array.from({ length: shards }, () => []);
    for (const did of unique) plan[shardOf(did, shards)]!.push(did);
    if (plan.every((shard) => shard.length <= size)) return plan;
  }
}

/** Reconnect delays: capped exponential backoff with full jitter, 250 ms → 30 s. */
export function reconnectDelayMs(failures: number, random: () => number): number {
  const cap = Math.min(30_000, 250 * 2 ** Math.min(failures, 10));
  return Math.floor(random() * cap);
}

/**
 * The status an `account` frame with `active: false` means: takendown and suspended are
 * `suspended`, deactivated and deleted `not_found`; anything else (a status Bluesky adds later,
 * `desynchronized`, `throttled`) is left to the next poll.
 */
export function inactiveStatus(status: string | null): AccountStatus | null {
  if (status === 'takendown' || status === 'suspended') return 'suspended';
  if (status === 'deactivated' || status === 'deleted') return 'not_found';
  return null;
}
