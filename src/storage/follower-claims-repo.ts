// Which accounts have their follower list on (DESIGN §11), and claiming their due passes under a
// lease, so one process runs an account's pass at a time. On: set per account (follower_list 1),
// or by default for Bluesky accounts and accounts with one of the configured tags; never above the
// follower limit. Accounts without a pass row yet are due at once (their first pass is the baseline).
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { accountPublicId } from '../domain/ids.ts';
import type { Platform } from '../domain/platforms.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface FollowerRule {
  maxFollowers: number;
  tags: readonly string[];
}

/** An account a pass runs for. */
export interface FollowerTarget {
  accountId: number;
  publicId: string;
  platform: Platform;
  username: string;
  platformUserId: string;
}

/** The follower list of account `a` is on (a SQL condition on accounts as `a`). */
export function followerListOn(rule: FollowerRule): Expression<SqlBool> {
  const tagged =
    rule.tags.length === 0
      ? sql<SqlBool>`false`
      : sql<SqlBool>`exists (select 1 from account_tags t where t.account_id = a.id and t.tag in (${sql.join(rule.tags)}))`;
  return sql<SqlBool>`(a.follower_list = 1 or (a.follower_list is null and (a.platform = 'bluesky' or ${tagged})))
    and coalesce(a.followers, 0) <= ${rule.maxFollowers}`;
}

export interface FollowerClaim {
  platform: Platform;
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  rule: FollowerRule;
}

/** Leases up to `limit` accounts of one platform whose pass is due, the longest due first. */
export async function claimFollowerPasses(db: Db, claim: FollowerClaim): Promise<FollowerTarget[]> {
  const { platform, owner, now, leaseMs, limit, rule } = claim;
  const due = await db
    .selectFrom('accounts as a')
    .leftJoin('follower_passes as p', 'p.account_id', 'a.id')
    .select(['a.id', 'a.username', 'a.platform_user_id'])
    .where('a.platform', '=', platform)
    .where('a.untracked_at', 'is', null)
    .where('a.status', '=', 'active')
    .where('a.platform_user_id', 'is not', null)
    .where(followerListOn(rule))
    .where((eb) =>
      eb.or([
        eb('p.account_id', 'is', null),
        eb.and([eb('p.next_at', '<=', now), eb.or([eb('p.lease_until', 'is', null), eb('p.lease_until', '<=', now)])]),
      ]),
    )
    .orderBy(sql`coalesce(p.next_at, 0)`)
    .orderBy('a.id')
    .limit(limit)
    .execute();
  if (due.length === 0) return [];
  // Taking the lease is one conditional upsert: of processes racing for a row, one wins.
  const won = await db
    .insertInto('follower_passes')
    .values(
      due.map((row) => ({
        account_id: row.id,
        pass_id: 0,
        next_at: now,
        lease_owner: owner,
        lease_until: now + leaseMs,
      })),
    )
    .onConflict((oc) =>
      oc
        .column('account_id')
        .doUpdateSet((eb) => ({
          lease_owner: eb.ref('excluded.lease_owner'),
          lease_until: eb.ref('excluded.lease_until'),
        }))
        .where((eb) =>
          eb.and([
            eb('follower_passes.next_at', '<=', now),
            eb.or([eb('follower_passes.lease_until', 'is', null), eb('follower_passes.lease_until', '<=', now)]),
          ]),
        ),
    )
    .returning('account_id')
    .execute();
  const ids = new Set(won.map((row) => Number(row.account_id)));
  return due
    .filter((row) => ids.has(Number(row.id)))
    .map((row) => ({
      accountId: Number(row.id),
      publicId: accountPublicId(Number(row.id)),
      platform,
      username: row.username,
      platformUserId: row.platform_user_id as string,
    }));
}

/** Keeps the lease while a pass works (false: it was lost, and the pass must stop). */
export async function renewPassLease(db: Db, accountId: number, owner: string, until: number): Promise<boolean> {
  const result = await db
    .updateTable('follower_passes')
    .set({ lease_until: until })
    .where('account_id', '=', accountId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Gives the lease back and says when the pass is due again (its cursor and marks stay). */
export async function releasePass(
  db: Db,
  accountId: number,
  owner: string,
  nextAt: number,
  error: string | null,
): Promise<void> {
  await db
    .updateTable('follower_passes')
    .set({
      next_at: nextAt,
      last_error: error === null ? null : error.slice(0, 500),
      lease_owner: null,
      lease_until: null,
    })
    .where('account_id', '=', accountId)
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * When the next pass is due after `now`, or a due pass's lease ends (null: none known). Passes due
 * but switched off, and accounts without a pass yet, are found by the job's poll.
 */
export async function nextPassAt(db: Db, now: number): Promise<number | null> {
  // A due pass under a lease (its process may have died) is claimable when the lease ends.
  const row = await db
    .selectFrom('follower_passes')
    .select((eb) =>
      eb.fn
        .min(
          eb
            .case()
            .when(eb.and([eb('next_at', '<=', now), eb('lease_until', '>', now)]))
            .then(eb.ref('lease_until'))
            .else(eb.ref('next_at'))
            .end(),
        )
        .as('at'),
    )
    .where((eb) => eb.or([eb('next_at', '>', now), eb('lease_until', '>', now)]))
    .executeTakeFirst();
  return row?.at == null ? null : Number(row.at);
}
