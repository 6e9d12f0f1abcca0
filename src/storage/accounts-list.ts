// The filtered, sorted page of accounts and its count, served from indexes: each (platform,
// status) pair the filter allows is one arm of a merge (list-arms.ts), read from the accounts'
// index for the sort, or from the tag rows' (account_tags) when a tag is asked for. A page is
// empty only at the end: nothing is cut short after a number of rows.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Account, AccountSort } from '../domain/account.ts';
import { countFromTable } from './account-counts-repo.ts';
import { armsOf, keepingPrefix, orderOf, SORTS, withPrefix, type AccountFilter } from './accounts-arms.ts';
import { ACCOUNT_COLUMNS, toAccount } from './accounts-map.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import {
  allOfArms,
  comparePositions,
  firstOfArms,
  keySegments,
  reachOfArms,
  withConditions,
  type ArmOrder,
  type Position,
} from './list-arms.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export type { AccountFilter };

export interface AccountPage {
  accounts: Account[];
  /** Where the next page starts (the last account's position), or null on an empty page. */
  last: Position | null;
  more: boolean;
}

/**
 * A prefix under another sort than the username's is the one filter no index orders: its matches
 * are found by name and the sort is taken among them. Up to this many matches that is one read
 * and a sort of them; beyond it the matches are common enough to meet soon in the sort's own
 * order, which is then walked this many rows at a time per arm, the event loop getting a turn in
 * between, until the page is full or the order ends.
 */
export const PREFIX_SORTED_MATCHES = 5_000;
export const PREFIX_WALK_ROWS = 5_000;

type Keyed = { sort_value: string | number; id: number };
type KeyQuery = RawBuilder<Keyed>;

// The queries a page is read with, exported so that a test can read their plans.

/**
 * The page's keys in the sort's index order, as one query per stretch of the order (keySegments),
 * each taking the rows still wanted: every filter but a prefix under another sort than the
 * username's. `to` ends the range (inclusive), for the walk of pageKeys.
 */
export function sortedKeys(
  caps: DialectCapabilities,
  filter: AccountFilter,
  sort: AccountSort,
  after?: Position,
  to?: Position,
): ((want: number) => KeyQuery)[] {
  const order = orderOf(filter, sort);
  const arms =
    sort === 'username'
      ? withPrefix(armsOf(caps, filter, sort), filter.prefix, typeof after?.[0] === 'string' ? after[0] : undefined)
      : keepingPrefix(armsOf(caps, filter, sort), filter.prefix);
  return keySegments(order, after, to).map(
    (segment) => (want: number) => firstOfArms(caps, order, withConditions(arms, segment.where), want, segment.tie),
  );
}

/** The prefix's matches, read from the username index (their count, up to `limit`, or all of them). */
export function prefixMatches(caps: DialectCapabilities, filter: AccountFilter, limit?: number) {
  const names = allOfArms(orderOf(filter, 'username'), withPrefix(armsOf(caps, filter, 'username'), filter.prefix));
  return limit === undefined
    ? sql<{ n: number | string }>`select count(*) as n from (${names}) as m`
    : sql<{ n: number | string }>`select count(*) as n from (select id from (${names}) as m limit ${limit}) as c`;
}

/**
 * The rows after `position` among a prefix's matches (numbers only), compared on value + 0: no
 * index is built on that, so PostgreSQL cannot prove from it that the sort's own index holds every
 * match (it is partial on the value, armsOf) and walk all of that index for the order instead of
 * reading the few matches by name.
 */
function afterAmongMatches(order: ArmOrder, position: Position) {
  const value = sql`(${order.value} + 0)`;
  const op = order.direction === 'asc' ? sql`>` : sql`<`;
  return sql`(${value} ${op} ${position[0]} or (${value} = ${position[0]} and ${order.id} ${op} ${position[1]}))`;
}

/** The page's keys among a prefix's few matches, found by name and sorted (PREFIX_SORTED_MATCHES). */
export function prefixSortedKeys(
  caps: DialectCapabilities,
  filter: AccountFilter,
  sort: AccountSort,
  want: number,
  after?: Position,
): KeyQuery {
  const order = orderOf(filter, sort);
  const byName = withPrefix(armsOf(caps, filter, 'username'), filter.prefix);
  const arms = after ? withConditions(byName, [afterAmongMatches(order, after)]) : byName;
  const d = sql.raw(order.direction);
  return sql<Keyed>`select * from (${allOfArms(order, arms)}) as m order by sort_value ${d}, id ${d} limit ${want}`;
}

/** How far PREFIX_WALK_ROWS rows of each arm after `from` reach, in the sort's index. */
export function walkReach(
  caps: DialectCapabilities,
  filter: AccountFilter,
  sort: AccountSort,
  from?: Position,
): KeyQuery {
  const order = orderOf(filter, sort);
  const arms = armsOf(caps, filter, sort);
  const stretches = keySegments(order, from).flatMap((segment) =>
    withConditions(arms, segment.where).map((arm) => ({ arm, tie: segment.tie })),
  );
  return reachOfArms(order, stretches, PREFIX_WALK_ROWS);
}

async function keys(db: Db, query: KeyQuery): Promise<Keyed[]> {
  return (await query.execute(db)).rows.map((r) => ({ sort_value: r.sort_value, id: Number(r.id) }));
}

/** Adds the keys of each stretch in turn to `found` until it holds `want`. */
async function readStretches(db: Db, stretches: ((want: number) => KeyQuery)[], want: number, found: Keyed[]) {
  for (const stretch of stretches) {
    if (found.length >= want) break;
    found.push(...(await keys(db, stretch(want - found.length))));
  }
  return found;
}

/** The page's keys: from the sort's index, or for a prefix under another sort, as PREFIX_SORTED_MATCHES says. */
async function pageKeys(
  db: Db,
  caps: DialectCapabilities,
  filter: AccountFilter,
  sort: AccountSort,
  want: number,
  after?: Position,
) {
  if (!filter.prefix || sort === 'username') return readStretches(db, sortedKeys(caps, filter, sort, after), want, []);
  const few = await prefixMatches(caps, filter, PREFIX_SORTED_MATCHES + 1).execute(db);
  if (Number(few.rows[0]?.n ?? 0) <= PREFIX_SORTED_MATCHES)
    return keys(db, prefixSortedKeys(caps, filter, sort, want, after));
  const direction = SORTS[sort].direction;
  const found: Keyed[] = [];
  let from = after;
  for (;;) {
    const reach = await keys(db, walkReach(caps, filter, sort, from));
    // Every arm has been read up to the nearest of these: the page is complete up to there.
    const to = reach.map((r): Position => [r.sort_value, r.id]).sort((a, b) => comparePositions(direction, a, b))[0];
    await readStretches(db, sortedKeys(caps, filter, sort, from, to), want, found);
    if (found.length >= want || to === undefined) return found;
    from = to;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** A page of tracked accounts matching `filter` in `sort`'s order, after `after`; `more` when others follow. */
export async function listAccounts(
  db: Db,
  caps: DialectCapabilities,
  filter: AccountFilter,
  page: { sort: AccountSort; limit: number; after?: Position | undefined },
): Promise<AccountPage> {
  const keys = await pageKeys(db, caps, filter, page.sort, page.limit + 1, page.after);
  const more = keys.length > page.limit;
  const shown = keys.slice(0, page.limit);
  if (shown.length === 0) return { accounts: [], last: null, more: false };
  const found = await db
    .selectFrom('accounts')
    .select(ACCOUNT_COLUMNS)
    .where(
      'id',
      'in',
      shown.map((k) => k.id),
    )
    .execute();
  const byId = new Map(found.map((row) => [Number(row.id), row]));
  const tail = shown.at(-1)!;
  return {
    // An account deleted between the two reads is left out; the position still moves past it.
    accounts: shown.flatMap((k) => {
      const row = byId.get(k.id);
      return row ? [toAccount(row)] : [];
    }),
    last: [tail.sort_value, tail.id],
    more,
  };
}

/**
 * Tracked accounts matching `filter`, exactly. Without a prefix: a sum of kept counts (at most 14
 * rows). With one: the matches counted in the username index, one entry each.
 */
export async function countAccounts(db: Db, caps: DialectCapabilities, filter: AccountFilter): Promise<number> {
  if (!filter.prefix) return countFromTable(db, filter);
  return Number((await prefixMatches(caps, filter).execute(db)).rows[0]?.n ?? 0);
}
