// Live follows (DESIGN §11) in the store: the follow records seen created for tracked subjects
// (migration 017), what a made or undone follow does to the follower rows, and the changes kept
// until they are announced. Every write is keyed by (follower DID, rkey): a replayed create finds
// its record and a replayed delete its tombstone, so neither changes anything again.
// Rows a follower pass is marking are kept in step with it: a follower gained live counts as seen
// by the running pass (its close does not take them for lost), one lost live as not seen.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface LiveFollow {
  followerDid: string;
  rkey: string;
  timeUs: number;
}

/** The follow record of (follower DID, rkey), for an update. */
const followRecord = (db: Db, followerDid: string, rkey: string) =>
  db.updateTable('follow_records').where('follower_did', '=', followerDid).where('rkey', '=', rkey);

/** The follower row of (account, follower DID), for an update. */
const followerRow = (db: Db, accountId: number, followerDid: string) =>
  db.updateTable('followers').where('account_id', '=', accountId).where('follower_id', '=', followerDid);

async function runningPass(db: Db, accountId: number): Promise<number | null> {
  const row = await db
    .selectFrom('follower_passes')
    .select('pass_id')
    .where('account_id', '=', accountId)
    .where('started_at', 'is not', null)
    .executeTakeFirst();
  return row ? Number(row.pass_id) : null;
}

/**
 * A follow of `accountId` made: its record is kept, and the follower is gained unless they follow
 * already. Returns whether it changed anything to announce (false for a replayed frame).
 */
export async function followMade(db: Db, follow: LiveFollow, accountId: number, now: number): Promise<boolean> {
  const { followerDid, rkey, timeUs } = follow;
  const fresh = await db
    .insertInto('follow_records')
    .values({ follower_did: followerDid, rkey, account_id: accountId, created_us: timeUs })
    .onConflict((oc) => oc.columns(['follower_did', 'rkey']).doNothing())
    .returning('rkey')
    .executeTakeFirst();
  if (!fresh) return false;
  const passId = await runningPass(db, accountId);
  const row = await db
    .selectFrom('followers')
    .select(['first_seen', 'gone_at'])
    .where('account_id', '=', accountId)
    .where('follower_id', '=', followerDid)
    .executeTakeFirst();
  const follower = followerRow(db, accountId, followerDid);
  if (row && row.first_seen !== null && row.gone_at === null) {
    if (passId !== null) await follower.set({ seen_pass: passId }).execute();
    return false;
  }
  if (row)
    await follower
      .set({
        first_seen: sql`coalesce(first_seen, ${now})`,
        gained_at: now,
        gone_at: null,
        ...(passId !== null ? { seen_pass: passId } : {}),
      })
      .execute();
  else
    await db
      .insertInto('followers')
      .values({
        account_id: accountId,
        follower_id: followerDid,
        // A frame names no handle: the DID stands in until a pass reads the handle.
        handle: followerDid,
        first_seen: now,
        gained_at: now,
        gone_at: null,
        seen_pass: passId ?? 0,
        pass_handle: null,
      })
      .execute();
  await followRecord(db, followerDid, rkey).set({ gained_at: now, pending: 1 }).execute();
  return true;
}

/**
 * A follow record deleted: if perch saw it created and the follower has no other follow record of
 * the same account, they are lost. Returns the account with a change to announce, or null.
 */
export async function followUndone(db: Db, follow: LiveFollow, now: number): Promise<number | null> {
  const { followerDid, rkey, timeUs } = follow;
  const seen = await db
    .selectFrom('follow_records')
    .select('account_id')
    .where('follower_did', '=', followerDid)
    .where('rkey', '=', rkey)
    .where('deleted_us', 'is', null)
    .executeTakeFirst();
  if (!seen) return null;
  const accountId = Number(seen.account_id);
  await followRecord(db, followerDid, rkey).set({ deleted_us: timeUs }).execute();
  const another = await db
    .selectFrom('follow_records')
    .select('rkey')
    .where('account_id', '=', accountId)
    .where('follower_did', '=', followerDid)
    .where('deleted_us', 'is', null)
    .executeTakeFirst();
  if (another) return null;
  const gone = await followerRow(db, accountId, followerDid)
    .set({ gone_at: now, seen_pass: 0 })
    .where('first_seen', 'is not', null)
    .where('gone_at', 'is', null)
    .executeTakeFirst();
  if (Number(gone.numUpdatedRows) === 0) return null;
  await followRecord(db, followerDid, rkey).set({ lost_at: now, pending: 1 }).execute();
  return accountId;
}

/** Drops tombstones older than `beforeUs` (past any replay) whose change was announced. */
export async function pruneFollowRecords(db: Db, beforeUs: number): Promise<number> {
  const result = await db
    .deleteFrom('follow_records')
    .where('deleted_us', '<', beforeUs)
    .where('pending', '=', 0)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
