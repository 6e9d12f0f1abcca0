// Reads of an account's follower identities (migration 013), a page at a time from their indexes:
// current followers in id order (the primary key), gained and lost ones newest first
// (followers_gained, followers_lost). Rows of a pass that has not closed never show.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export type FollowerState = 'current' | 'gained' | 'lost';

export interface FollowerRow {
  platformUserId: string;
  username: string;
  firstSeenAt: number;
  gainedAt: number | null;
  goneAt: number | null;
}

export interface FollowerQuery {
  state: FollowerState;
  /** gained/lost: at or after this time (epoch ms). */
  since?: number | undefined;
  limit: number;
  /** Where the previous page ended: [time, id] for gained/lost, [id] for current. */
  after?: { at: number; id: string } | { id: string } | undefined;
}

export async function listFollowers(
  db: Db,
  accountId: number,
  query: FollowerQuery,
): Promise<{ rows: FollowerRow[]; more: boolean }> {
  let select = db
    .selectFrom('followers')
    .select(['follower_id', 'handle', 'first_seen', 'gained_at', 'gone_at'])
    .where('account_id', '=', accountId)
    .where('first_seen', 'is not', null);
  const { after } = query;
  if (query.state === 'current') {
    select = select.where('gone_at', 'is', null).orderBy('follower_id');
    if (after) select = select.where('follower_id', '>', after.id);
  } else {
    const time = query.state === 'gained' ? 'gained_at' : 'gone_at';
    select = select.where(time, 'is not', null).orderBy(time, 'desc').orderBy('follower_id', 'desc');
    if (query.since !== undefined) select = select.where(time, '>=', query.since);
    if (after && 'at' in after)
      select = select.where((eb) =>
        eb.or([eb(time, '<', after.at), eb.and([eb(time, '=', after.at), eb('follower_id', '<', after.id)])]),
      );
  }
  const rows = await select.limit(query.limit + 1).execute();
  const more = rows.length > query.limit;
  return {
    rows: rows.slice(0, query.limit).map((r) => ({
      platformUserId: r.follower_id,
      username: r.handle,
      firstSeenAt: Number(r.first_seen),
      gainedAt: r.gained_at === null ? null : Number(r.gained_at),
      goneAt: r.gone_at === null ? null : Number(r.gone_at),
    })),
    more,
  };
}

/** The account's follower-list setting (null: the default rule), its followers, and its last pass. */
export async function followerListOf(
  db: Db,
  accountId: number,
): Promise<{
  setting: boolean | null;
  followers: number | null;
  platform: string;
  lastPassAt: number | null;
  listed: number | null;
  nextPassAt: number | null;
  running: boolean;
} | null> {
  const row = await db
    .selectFrom('accounts as a')
    .leftJoin('follower_passes as p', 'p.account_id', 'a.id')
    .select([
      'a.follower_list',
      'a.followers',
      'a.platform',
      'p.finished_at',
      'p.followers as listed',
      'p.next_at',
      'p.started_at',
    ])
    .where('a.id', '=', accountId)
    .executeTakeFirst();
  if (!row) return null;
  const num = (v: number | null | undefined) => (v === null || v === undefined ? null : Number(v));
  return {
    setting: row.follower_list === null ? null : Number(row.follower_list) === 1,
    followers: num(row.followers),
    platform: row.platform,
    lastPassAt: num(row.finished_at),
    listed: num(row.listed),
    nextPassAt: num(row.next_at),
    running: row.started_at !== null && row.started_at !== undefined,
  };
}

/** Switches the account's follower list on or off (null: back to the default rule). */
export async function setFollowerListSetting(
  db: Db,
  accountId: number,
  on: boolean | null,
  now: number,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ follower_list: on === null ? null : on ? 1 : 0, updated_at: now })
    .where('id', '=', accountId)
    .execute();
}
