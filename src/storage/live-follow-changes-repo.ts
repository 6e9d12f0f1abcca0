// Live follows (DESIGN §11): which tracked accounts a follow frame is about, and the live changes
// kept for an account until it may be announced (account.followers_changed, at most one a minute,
// the minute the passes keep too), with the accounts as events name them.
import { sql, type Kysely } from 'kysely';
import { accountPublicId } from '../domain/ids.ts';
import type { EventAccount } from '../domain/events.ts';
import { FOLLOWER_SAMPLE, type FollowerIdentity } from '../domain/followers.ts';
import { followerListOn, type FollowerRule } from './follower-claims-repo.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

const CHUNK = 500;

/** Tracked Bluesky accounts among `dids` whose follower list is on: DID → account id. */
export async function followedSubjects(
  db: Db,
  dids: readonly string[],
  rule: FollowerRule,
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const unique = [...new Set(dids)];
  for (let at = 0; at < unique.length; at += CHUNK) {
    const rows = await db
      .selectFrom('accounts as a')
      .select(['a.id', 'a.platform_user_id'])
      .where('a.platform', '=', 'bluesky')
      .where('a.platform_user_id', 'in', unique.slice(at, at + CHUNK))
      .where('a.untracked_at', 'is', null)
      .where(followerListOn(rule))
      .execute();
    for (const row of rows) found.set(row.platform_user_id!, row.id);
  }
  return found;
}

/** Whether any account has its follower list on where the follows stream serves it (Bluesky). */
export async function anyLiveFollowSubject(db: Db, rule: FollowerRule): Promise<boolean> {
  const row = await db
    .selectFrom('accounts as a')
    .select('a.id')
    .where('a.platform', '=', 'bluesky')
    .where('a.untracked_at', 'is', null)
    .where(followerListOn(rule))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface LiveChanges {
  gained: FollowerIdentity[];
  lost: FollowerIdentity[];
  gainedCount: number;
  lostCount: number;
}

/**
 * Takes the account's unannounced live changes, if its last account.followers_changed is at least
 * `gapMs` old (the same minute the passes keep: one statement claims it, so two writers never both
 * announce); null when it is too soon (they stay for later), or, with `nameWaitMs`, while a
 * follower gained live in the last `nameWaitMs` has no name yet.
 */
export async function takeLiveChanges(
  db: Db,
  accountId: number,
  now: number,
  gapMs: number,
  nameWaitMs = 0,
): Promise<LiveChanges | null> {
  if (nameWaitMs > 0 && (await waitsForNames(db, accountId, now - nameWaitMs))) return null;
  await db
    .insertInto('follower_passes')
    .values({ account_id: accountId, pass_id: 0, next_at: now })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  const claimed = await db
    .updateTable('follower_passes')
    .set({ last_event_at: now })
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('last_event_at', 'is', null), eb('last_event_at', '<=', now - gapMs)]))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return null;
  const pending = (column: 'gained_at' | 'lost_at') =>
    db
      .selectFrom('follow_records as r')
      .leftJoin('followers as f', (join) =>
        join.onRef('f.account_id', '=', 'r.account_id').onRef('f.follower_id', '=', 'r.follower_did'),
      )
      .where('r.account_id', '=', accountId)
      .where('r.pending', '=', 1)
      .where(`r.${column}`, 'is not', null);
  const sample = async (column: 'gained_at' | 'lost_at') =>
    (
      await pending(column)
        .select(['r.follower_did', sql<string>`coalesce(f.handle, r.follower_did)`.as('handle')])
        .orderBy('r.follower_did')
        .limit(FOLLOWER_SAMPLE)
        .execute()
    ).map((r) => ({ platformUserId: r.follower_did, username: r.handle }));
  const count = async (column: 'gained_at' | 'lost_at') =>
    Number(
      (
        await pending(column)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const [gained, lost, gainedCount, lostCount] = await Promise.all([
    sample('gained_at'),
    sample('lost_at'),
    count('gained_at'),
    count('lost_at'),
  ]);
  await db
    .updateTable('follow_records')
    .set({ pending: 0, gained_at: null, lost_at: null })
    .where('account_id', '=', accountId)
    .where('pending', '=', 1)
    .execute();
  return { gained, lost, gainedCount, lostCount };
}

/** Whether a follower gained live since `since` still has no name (its handle is its DID). */
async function waitsForNames(db: Db, accountId: number, since: number): Promise<boolean> {
  const row = await db
    .selectFrom('follow_records as r')
    .innerJoin('followers as f', (join) =>
      join.onRef('f.account_id', '=', 'r.account_id').onRef('f.follower_id', '=', 'r.follower_did'),
    )
    .select('r.follower_did')
    .where('r.account_id', '=', accountId)
    .where('r.pending', '=', 1)
    .where('r.gained_at', '>', since)
    .whereRef('f.handle', '=', 'r.follower_did')
    .where('f.gone_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Accounts whose live changes wait for their minute and may be announced now. */
export async function accountsToAnnounce(db: Db, now: number, gapMs: number): Promise<number[]> {
  const rows = await db
    .selectFrom('follow_records as r')
    .leftJoin('follower_passes as p', 'p.account_id', 'r.account_id')
    .select('r.account_id')
    .distinct()
    .where('r.pending', '=', 1)
    .where((eb) => eb.or([eb('p.last_event_at', 'is', null), eb('p.last_event_at', '<=', now - gapMs)]))
    .limit(CHUNK)
    .execute();
  return rows.map((r) => Number(r.account_id));
}

/** The accounts as events name them. */
export async function eventAccounts(db: Db, ids: readonly number[]): Promise<Map<number, EventAccount>> {
  const found = new Map<number, EventAccount>();
  if (ids.length === 0) return found;
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'username', 'platform_user_id'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  for (const row of rows)
    found.set(row.id, {
      id: accountPublicId(row.id),
      platform: 'bluesky',
      username: row.username,
      platformUserId: row.platform_user_id,
    });
  return found;
}
