// Followers a live follow added by DID alone (storage/live-follows-repo.ts): which are still
// unnamed, and their handles once the platform said them. Only a row whose handle is still its
// DID is named, so a handle a pass wrote meanwhile stays.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/**
 * Up to `limit` distinct DIDs after `after` (in id order) that stand in for current followers'
 * handles; fewer than `limit` means the end was reached (the caller starts again from '').
 */
export async function unnamedFollowers(db: Db, after: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('followers')
    .select('follower_id')
    .distinct()
    .where(sql<boolean>`handle = follower_id`)
    .where('gone_at', 'is', null)
    .where('follower_id', '>', after)
    .where('follower_id', 'like', 'did:%')
    .orderBy('follower_id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.follower_id);
}

/** Writes each DID's handle where it still stands in for one; returns the rows named. */
export async function nameFollowers(db: Db, handles: ReadonlyMap<string, string>): Promise<number> {
  let named = 0;
  for (const [did, handle] of handles) {
    const result = await db
      .updateTable('followers')
      .set({ handle })
      .where('follower_id', '=', did)
      .where(sql<boolean>`handle = follower_id`)
      .where('gone_at', 'is', null)
      .executeTakeFirst();
    named += Number(result.numUpdatedRows);
  }
  return named;
}
