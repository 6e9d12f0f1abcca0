// The accounts that gained or lost most followers over a day or a week, read from the movers
// indexes of migration 015 (tracked accounts only): gainers from the top down, losers from the
// bottom up, so either is a short range of one index however many accounts there are.
import { sql, type Kysely } from 'kysely';
import type { Platform } from '../domain/platforms.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export type MoverWindow = '1d' | '7d';
export type MoverDirection = 'up' | 'down';

export interface Mover {
  platform: Platform;
  username: string;
  followers: number;
  /** Followers gained (positive) or lost (negative) over the window. */
  change: number;
}

const COLUMN = { '1d': 'followers_change_1d', '7d': 'followers_change_7d' } as const;

/** The query of topMovers, apart for the plan tests. */
export function moversQuery(window: MoverWindow, direction: MoverDirection, limit: number) {
  const value = sql.ref(COLUMN[window]);
  const order = sql.raw(direction === 'up' ? 'desc' : 'asc');
  const side = direction === 'up' ? sql`${value} > 0` : sql`${value} < 0`;
  return sql<{ platform: string; username: string; followers: number | string | null; change: number | string }>`
    select platform, username, followers, ${value} as change from accounts
    where untracked_at is null and ${value} is not null and ${side}
    order by ${value} ${order}, id ${order} limit ${limit}`;
}

/** Up to `limit` accounts that gained (`up`) or lost (`down`) most over the window, biggest first. */
export async function topMovers(
  db: Db,
  window: MoverWindow,
  direction: MoverDirection,
  limit: number,
): Promise<Mover[]> {
  const { rows } = await moversQuery(window, direction, limit).execute(db);
  return rows.map((row) => ({
    platform: row.platform as Platform,
    username: row.username,
    followers: Number(row.followers ?? 0),
    change: Number(row.change),
  }));
}
