// The tracker's results in the accounts table: write a check back (only while the lease is still
// ours), an admin's refresh, and the counts health and metrics report. Leases are in leases-repo.ts.
import { sql, type Kysely } from 'kysely';
import type { AccountStatus } from '../domain/account.ts';
import type { Platform } from '../domain/platforms.ts';
import { countsByPlatformAndStatus } from './account-counts-repo.ts';
import { runByShape } from './prepared.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/**
 * Accounts due now per platform, including those a tracker is checking at this moment. Counted
 * from the claim index alone: health and metrics ask often, and a million rows must stay cheap.
 */
export async function countDue(db: Db, platforms: readonly Platform[], now: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const platform of platforms) {
    const row = await db
      .selectFrom('accounts')
      .select(sql<number>`count(*)`.as('n'))
      .where('platform', '=', platform)
      .where('next_check_at', '<=', now)
      .executeTakeFirst();
    counts[platform] = Number(row?.n ?? 0);
  }
  return counts;
}

/** Whether any account of the platform is tracked and not paused (health's credentials warning). */
export async function tracksAny(db: Db, platform: Platform): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('platform', '=', platform)
    .where('untracked_at', 'is', null)
    .where('status', '<>', 'paused')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Tracked accounts per platform and status (untracked ones left out), from the kept counts. */
export function countByStatus(db: Db): Promise<{ platform: string; status: string; n: number }[]> {
  return countsByPlatformAndStatus(db);
}

/** Makes one account due now (admin refresh); false when it is not tracked or is paused. */
export async function makeDueNow(db: Db, accountId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ next_check_at: now, updated_at: now })
    .where('id', '=', accountId)
    .where('untracked_at', 'is', null)
    .where('status', '<>', 'paused')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The outcome of one check, as the store keeps it. Fields left undefined are not changed. */
export interface CheckWrite {
  id: number;
  status: AccountStatus;
  statusReason?: string | null;
  lastCheckedAt?: number;
  nextCheckAt: number;
  /** The due time the check was claimed at (see writeCheck). */
  claimedDueAt: number;
  /** The status the check was claimed in: the write happens only while it is still the account's. */
  claimedStatus: AccountStatus;
  consecutiveFailures: number;
  lastError: string | null;
  username?: string;
  usernameKey?: string;
  platformUserId?: string;
  profile?: unknown;
  metrics?: unknown;
  analysis?: unknown;
  followers?: number;
  followersChange7d?: number | null;
  followersChange1d?: number | null;
  followerSeries?: readonly (readonly [number, number])[];
  renames?: readonly unknown[];
  postsSeenCount?: number;
  lastPostId?: string | null;
  /** The UTC day the platform billed this user (set when a check read it). */
  billedOn?: string;
}

/**
 * Writes one account's check and releases its lease, but only while `owner` still holds the lease:
 * a tracker that stalled past its lease must not overwrite the check of the tracker that took over.
 * Returns false when the lease was lost (the caller then drops the snapshot and posts too).
 */
export async function writeCheck(db: Db, owner: string, write: CheckWrite, now: number): Promise<boolean> {
  const json = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));
  const values = {
    status: write.status,
    status_reason: write.statusReason,
    last_checked_at: write.lastCheckedAt,
    consecutive_failures: write.consecutiveFailures,
    last_error: write.lastError,
    username: write.username,
    username_key: write.usernameKey,
    platform_user_id: write.platformUserId,
    profile: json(write.profile),
    metrics: json(write.metrics),
    analysis: json(write.analysis),
    followers: write.followers,
    followers_change_7d: write.followersChange7d,
    followers_change_1d: write.followersChange1d,
    follower_series: json(write.followerSeries),
    renames: json(write.renames),
    posts_seen_count: write.postsSeenCount,
    last_post_id: write.lastPostId,
    billed_on: write.billedOn,
    lease_owner: null,
    lease_expires_at: null,
    updated_at: now,
  };
  const defined = Object.entries(values).filter(([, v]) => v !== undefined);
  const columns = defined.map(([column]) => column);
  const args = [
    ...defined.map(([, value]) => value),
    write.claimedDueAt,
    write.nextCheckAt,
    write.id,
    owner,
    write.claimedStatus,
  ];
  const result = await runByShape(db, `write-check:${columns.join(',')}`, args, (a) => {
    const [claimedDueAt, nextCheckAt, id, leaseOwner, claimedStatus] = a.slice(columns.length);
    const set: Record<string, unknown> = Object.fromEntries(columns.map((column, i) => [column, a[i]]));
    // An admin's refresh during the check moved the due time: the earlier of the two is kept, so
    // the refresh is not lost under the check's own schedule.
    set.next_check_at = sql<number>`case when next_check_at <> ${claimedDueAt} and next_check_at < ${nextCheckAt} then next_check_at else ${nextCheckAt} end`;
    return (
      db
        .updateTable('accounts')
        .set(set)
        .where('id', '=', id as number)
        .where('lease_owner', '=', leaseOwner as string)
        // An admin may have paused or untracked the account while it was being checked: that wins.
        // (A claimed account is never paused; every other change of its status during the check
        // also takes its lease.) So the status replaced is the claimed one, which the counts rely on.
        .where('untracked_at', 'is', null)
        .where('status', '=', claimedStatus as string)
    );
  });
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Another account of the platform already uses this name (a rename would break uniqueness). */
export async function nameTakenByOther(
  db: Db,
  platform: Platform,
  usernameKey: string,
  accountId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('platform', '=', platform)
    .where('username_key', '=', usernameKey)
    .where('id', '<>', accountId)
    .executeTakeFirst();
  return row !== undefined;
}
