// The account list's arms (list-arms.ts): per sort its value and index, one arm per (platform,
// status) pair the filter allows, read from the accounts' index or the tag rows', and a prefix
// as a range of names or as a check on the name an index carries.
import { sql } from 'kysely';
import { ACCOUNT_STATUSES, type AccountSort, type AccountStatus } from '../domain/account.ts';
import { PLATFORMS, type Platform } from '../domain/platforms.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { withConditions, type Arm, type ArmOrder } from './list-arms.ts';

export interface AccountFilter {
  status?: AccountStatus | undefined;
  platform?: Platform | undefined;
  tag?: string | undefined;
  /** Username prefix, lower-case. */
  prefix?: string | undefined;
}

// Per sort: its direction, its value on accounts (the exact expressions the indexes of migration
// 010 are built on; missing numbers sort last) and on the tag rows, and the indexes' name.
export const SORTS = {
  username: { direction: 'asc', account: 'username_key', tag: 'username_key', index: 'username' },
  '-followers': { direction: 'desc', account: 'coalesce(followers, -1)', tag: 'sort_followers', index: 'followers' },
  '-followersChange7d': {
    direction: 'desc',
    account: 'coalesce(followers_change_7d, -9007199254740991)',
    tag: 'sort_growth',
    index: 'growth',
  },
  '-lastCheckedAt': {
    direction: 'desc',
    account: 'coalesce(last_checked_at, 0)',
    tag: 'sort_checked',
    index: 'checked',
  },
} as const satisfies Record<AccountSort, { direction: 'asc' | 'desc'; account: string; tag: string; index: string }>;

/**
 * The arms of the filter read from `index`'s index: one per (platform, status) pair. Each index
 * is partial on a condition every row meets (names are at least '', the numbers at most 2^53 - 1),
 * which each arm states in the same words: then only that index can serve the arm. Without
 * statistics PostgreSQL finds every index on the arm's equal columns alike, and one that cannot
 * give the order costs it only a sort of the one row it expects (SQLite is told the index by
 * name). It is said as `(…) is true` so that no store takes it for a bound of the range: SQLite,
 * given two lower bounds, may start the range at '' instead of at the prefix or the cursor.
 */
export function armsOf(caps: DialectCapabilities, filter: AccountFilter, index: AccountSort): Arm[] {
  const { index: name, direction } = SORTS[index];
  const tagged = filter.tag !== undefined;
  const from = tagged
    ? sql`account_tags ${caps.indexedBy(`account_tags_${name}`)}`
    : sql`accounts ${caps.indexedBy(`accounts_list_${name}`)}`;
  const lead = tagged ? sql`tag = ${filter.tag}` : sql`untracked_at is null`;
  const value = tagged ? SORTS[index].tag : SORTS[index].account;
  const first = sql.raw(
    direction === 'asc' ? `(${value} >= '') is true` : `(${value} <= ${Number.MAX_SAFE_INTEGER}) is true`,
  );
  const arms: Arm[] = [];
  for (const platform of filter.platform ? [filter.platform] : PLATFORMS)
    for (const status of filter.status ? [filter.status] : ACCOUNT_STATUSES)
      arms.push({ from, where: [lead, first, sql`platform = ${platform}`, sql`status = ${status}`] });
  return arms;
}

export function orderOf(filter: AccountFilter, sort: AccountSort): ArmOrder {
  const s = SORTS[sort];
  return {
    value: sql.raw(filter.tag === undefined ? s.account : s.tag),
    id: sql.raw(filter.tag === undefined ? 'id' : 'account_id'),
    direction: s.direction,
    distinct: sort === 'username',
  };
}

/** The username range of a prefix: from the prefix up to (not including) its last character's successor. */
function prefixRange(prefix: string, after?: string) {
  const points = [...prefix];
  let end: string | null = null;
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      end = points.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
      break;
    }
  }
  // A later page's position is already past the prefix's start: a second lower bound on the name
  // would let SQLite start the range at the prefix and walk every name before the position.
  const past = after !== undefined && Buffer.compare(Buffer.from(after), Buffer.from(prefix)) >= 0;
  const bounds = past ? [] : [sql`username_key >= ${prefix}`];
  return end === null ? bounds : [...bounds, sql`username_key < ${end}`];
}

/** The arms, read from the username index, limited to a prefix's range of names (after the name `after`, if given). */
export const withPrefix = (arms: readonly Arm[], prefix: string | undefined, after?: string) =>
  prefix ? withConditions(arms, prefixRange(prefix, after)) : [...arms];

/**
 * The arms, read in another sort's index, keeping a prefix's names only: checked on the name the
 * index carries, in a form no index serves, so PostgreSQL does not trade the sort's order for
 * the username index's range.
 */
export const keepingPrefix = (arms: readonly Arm[], prefix: string | undefined) =>
  prefix ? withConditions(arms, [sql`substr(username_key, 1, ${[...prefix].length}) = ${prefix}`]) : [...arms];
