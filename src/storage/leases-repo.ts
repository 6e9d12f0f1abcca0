// The tracker's leases on the accounts table: claim due accounts under a lease, renew the leases of
// a batch still working, give them back, and find when the next account is due.
import { sql, type Kysely } from 'kysely';
import type { AccountStatus } from '../domain/account.ts';
import type { Platform } from '../domain/platforms.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { parseJson } from './json-column.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** What the tracker needs to check one account. */
export interface ClaimedAccount {
  id: number;
  platform: Platform;
  username: string;
  platformUserId: string | null;
  status: AccountStatus;
  /** When the account was due as claimed: a later change of it during the check is an admin's refresh. */
  dueAt: number;
  postsSeenCount: number | null;
  lastPostId: string | null;
  followerSeries: [number, number][];
  /** The followers as last observed (null before the first check). */
  followers: number | null;
  consecutiveFailures: number;
  renames: { from: string; to: string; at: string }[];
  /** The UTC day the platform last billed this user, if any: a re-check that day is free. */
  billedOn: string | null;
  /** Its tags as claimed (the alert rules' scopes read them). */
  tags: string[];
}

export interface ClaimRequest {
  platform: Platform;
  /** true: accounts already resolved to a platform id; false: names never resolved yet. */
  resolved: boolean;
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  /** Only accounts whose user was billed on this UTC day (re-checks that cost nothing). */
  billedOn?: string | undefined;
}

const CLAIM_COLUMNS = [
  'id',
  'platform',
  'username',
  'platform_user_id',
  'status',
  'next_check_at',
  'posts_seen_count',
  'last_post_id',
  'follower_series',
  'followers',
  'consecutive_failures',
  'renames',
  'billed_on',
  'tags',
] as const;

/**
 * Leases up to `limit` due accounts of one platform, oldest due first. On PostgreSQL the inner
 * select skips rows another tracker is claiming at this moment (FOR UPDATE SKIP LOCKED), so
 * trackers get disjoint batches without waiting; SQLite has one writer, which serialises claims.
 */
export async function claimDueAccounts(
  db: Db,
  caps: DialectCapabilities,
  request: ClaimRequest,
): Promise<ClaimedAccount[]> {
  const { platform, resolved, owner, now, leaseMs, limit, billedOn } = request;
  let due = db
    .selectFrom('accounts')
    .select('id')
    .where('platform', '=', platform)
    .where('next_check_at', '<=', now)
    .where('platform_user_id', resolved ? 'is not' : 'is', null)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
    .orderBy('next_check_at')
    .orderBy('id')
    .limit(limit);
  if (billedOn !== undefined) due = due.where('billed_on', '=', billedOn);
  if (caps.skipLocked) due = due.forUpdate().skipLocked();
  const rows = await db
    .updateTable('accounts')
    .set({ lease_owner: owner, lease_expires_at: now + leaseMs })
    .where('id', 'in', due)
    .returning(CLAIM_COLUMNS)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    platform: row.platform as Platform,
    username: row.username,
    platformUserId: row.platform_user_id,
    status: row.status as AccountStatus,
    dueAt: Number(row.next_check_at),
    postsSeenCount: row.posts_seen_count,
    lastPostId: row.last_post_id,
    followerSeries: parseJson<[number, number][]>(row.follower_series, []),
    followers: row.followers === null ? null : Number(row.followers),
    consecutiveFailures: row.consecutive_failures,
    renames: parseJson(row.renames, []),
    billedOn: row.billed_on,
    tags: parseJson<string[]>(row.tags, []),
  }));
}

/** Gives leases back without checking (shutdown): the accounts are due again at once for any tracker. */
export async function releaseLeases(db: Db, owner: string, ids?: readonly number[]): Promise<number> {
  let query = db
    .updateTable('accounts')
    .set({ lease_owner: null, lease_expires_at: null })
    .where('lease_owner', '=', owner);
  if (ids !== undefined) {
    if (ids.length === 0) return 0;
    query = query.where('id', 'in', ids);
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Gives back every lease of one tracker (all its claims, `TRACKER/N`): the safety net at shutdown. */
export async function releaseTrackerLeases(db: Db, tracker: string): Promise<number> {
  const prefix = `${tracker.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
  const result = await db
    .updateTable('accounts')
    .set({ lease_owner: null, lease_expires_at: null })
    .where(sql<boolean>`lease_owner like ${prefix} escape '\\'`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Extends the leases `owner` still holds on `ids` to `until`; returns how many it still holds. */
export async function renewLeases(db: Db, owner: string, ids: readonly number[], until: number): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('accounts')
    .set({ lease_expires_at: until })
    .where('lease_owner', '=', owner)
    .where('id', 'in', ids)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Whether any never-resolved account of the platform is due and unclaimed (read from its partial index). */
export async function hasDueUnresolved(db: Db, platform: Platform, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('platform', '=', platform)
    .where('platform_user_id', 'is', null)
    .where('next_check_at', '<=', now)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Gives leases back and makes the accounts due again only at `until` (a batch that failed on our side). */
export async function deferAccounts(db: Db, owner: string, ids: readonly number[], until: number): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('accounts')
    .set({ lease_owner: null, lease_expires_at: null, next_check_at: until })
    .where('lease_owner', '=', owner)
    .where('id', 'in', ids)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The earliest time an account of these platforms can be claimed (due, and its lease expired), so
 * an idle tracker knows how long it may sleep. Both queries walk an index, not the table.
 */
export async function nextDueAt(db: Db, platforms: readonly Platform[], now: number): Promise<number | null> {
  if (platforms.length === 0) return null;
  const first = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.min('next_check_at').as('at'))
    .where('platform', 'in', platforms)
    .where('next_check_at', 'is not', null)
    .executeTakeFirst();
  if (first?.at === null || first?.at === undefined) return null;
  if (Number(first.at) > now) return Number(first.at);
  // Something is due but every due account is leased (another tracker is on it): wake when the first lease ends.
  const lease = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.min('lease_expires_at').as('at'))
    .where('platform', 'in', platforms)
    .where('next_check_at', '<=', now)
    .where('lease_expires_at', '>', now)
    .executeTakeFirst();
  return lease?.at === null || lease?.at === undefined ? now : Number(lease.at);
}
