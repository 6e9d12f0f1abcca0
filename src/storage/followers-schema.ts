// The follower tables (migrations 013 and 017) as Kysely sees them; part of `Database`.
import type { Generated } from 'kysely';

/** One follower identity of an account, current or gone. */
export interface FollowersTable {
  account_id: number;
  /** The follower's platform id (an X user id, a Bluesky DID). */
  follower_id: string;
  /** The follower's handle when last seen by a finished pass. */
  handle: string;
  /** When a finished pass first saw this follower; null while only an unfinished pass has. */
  first_seen: number | null;
  /** When perch saw them follow (null for those there at the first pass: the baseline). */
  gained_at: number | null;
  /** When a finished pass no longer found them; null while they follow. */
  gone_at: number | null;
  /** The number of the last pass that saw them (0: none). */
  seen_pass: Generated<number>;
  /** The handle that pass saw, applied when it closes. */
  pass_handle: string | null;
}

/** Per account: its current (or last) follower pass and when the next is due. */
export interface FollowerPassesTable {
  account_id: number;
  pass_id: number;
  /** The platform's cursor of the next page (null: the first page, or no pass running). */
  cursor: string | null;
  /** Set while a pass runs (it resumes from `cursor`); null between passes. */
  started_at: number | null;
  pages: Generated<number>;
  seen: Generated<number>;
  finished_at: number | null;
  /** Followers found by the last finished pass. */
  followers: number | null;
  next_at: number;
  last_event_at: number | null;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: number | null;
}

/** A follow record seen created on Jetstream for a tracked subject (migration 017). */
export interface FollowRecordsTable {
  follower_did: string;
  rkey: string;
  /** The followed (tracked) account. */
  account_id: number;
  created_us: number;
  /** The delete frame's time_us: a tombstone until pruned. */
  deleted_us: number | null;
  /** When its creation made the follower gained, until announced. */
  gained_at: number | null;
  /** When its deletion made the follower lost, until announced. */
  lost_at: number | null;
  /** 1 while it holds a change not yet announced. */
  pending: Generated<number>;
}

export interface FollowerTables {
  followers: FollowersTable;
  follower_passes: FollowerPassesTable;
  follow_records: FollowRecordsTable;
}
