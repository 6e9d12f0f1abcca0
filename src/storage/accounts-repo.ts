// Reads and admin changes of tracked accounts. Functions take the executor first, so they compose
// inside a caller's transaction.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Account, AccountRef, AccountSort, AccountStatus } from '../domain/account.ts';
import type { Platform } from '../domain/platforms.ts';
import { ACCOUNT_COLUMNS, toAccount, toAccountJson, type AccountRow } from './accounts-map.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { gatheredAccountRow } from './gathered-account-lookups.ts';
import { preparedQuery } from './prepared.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

// Lookups by name say only `platform = ? and username_key = ?`: that matches the unique index
// (platform, username_key) exactly, so PostgreSQL takes it whatever its statistics say. With
// `untracked_at is null` in the query too, a table without statistics (right after an import,
// before any ANALYZE) looked cheaper through the partial index accounts_by_status, which walks
// every account of the platform. Untracked rows are left out here, after the one-row read.

/** The query behind findAccount, tracked or not (exported so that a test can read its plan). */
export function selectAccountByName(db: Db, ref: AccountRef) {
  return db
    .selectFrom('accounts')
    .select([...ACCOUNT_COLUMNS, 'untracked_at'])
    .where('platform', '=', ref.platform)
    .where('username_key', '=', ref.key);
}

/** The query behind findAccounts, tracked or not (exported so that a test can read its plan). */
export function selectAccountsByName(db: Db, refs: readonly AccountRef[]) {
  return db
    .selectFrom('accounts')
    .select([...ACCOUNT_COLUMNS, 'username_key', 'untracked_at'])
    .where((eb) => eb.or(refs.map((r) => eb.and([eb('platform', '=', r.platform), eb('username_key', '=', r.key)]))));
}

// The API's hottest read, compiled once (storage/prepared.ts).
const accountByName = preparedQuery((db: Db, platform: string, key: string) =>
  selectAccountByName(db, { platform: platform as Platform, key }),
);

/** One tracked account's row, or null (untracked accounts are hidden until re-imported). */
async function findAccountRow(db: Db, ref: AccountRef): Promise<AccountRow | null> {
  const [row] = await accountByName(db, ref.platform, ref.key);
  return row === undefined || row.untracked_at !== null ? null : row;
}

/** One tracked account, or null (untracked accounts are hidden until re-imported). */
export async function findAccount(db: Db, ref: AccountRef): Promise<Account | null> {
  const row = await findAccountRow(db, ref);
  return row === null ? null : toAccount(row);
}

/**
 * One tracked account as the API's JSON, written from the stored text (toAccountJson), or as an
 * Account when its stored form does not allow that; null when it is not tracked. Where the dialect
 * says so (PostgreSQL), lookups arriving together share one query.
 */
export async function findAccountJson(
  db: Db,
  caps: DialectCapabilities,
  ref: AccountRef,
  isStale: (observedAt: string) => boolean,
): Promise<{ json: string } | Account | null> {
  const row =
    caps.textPairs === null ? await findAccountRow(db, ref) : await gatheredAccountRow(db, caps.textPairs, ref);
  if (row === null) return null;
  const json = toAccountJson(row, isStale);
  return json === null ? toAccount(row) : { json };
}

/** The row id of a tracked account (untracked ones are hidden, as everywhere in the API), or null. */
export async function findAccountRowId(db: Db, ref: AccountRef): Promise<number | null> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'untracked_at'])
    .where('platform', '=', ref.platform)
    .where('username_key', '=', ref.key)
    .executeTakeFirst();
  return row === undefined || row.untracked_at !== null ? null : row.id;
}

/** Several accounts in one query; the result follows the order of `refs`, absent ones omitted. */
export async function findAccounts(db: Db, refs: readonly AccountRef[]): Promise<Map<string, Account>> {
  const found = new Map<string, Account>();
  if (refs.length === 0) return found;
  const rows = await selectAccountsByName(db, refs).execute();
  for (const row of rows)
    if (row.untracked_at === null) found.set(`${row.platform}:${row.username_key}`, toAccount(row));
  return found;
}

export interface AccountFilter {
  status?: AccountStatus;
  platform?: Platform;
  tag?: string;
  /** Username prefix, lower-case. */
  prefix?: string;
  sort: AccountSort;
  limit: number;
  /** Position after which the page starts: [sort value, row id]. */
  after?: readonly [string | number, number];
}

// Each sort is a (value, id) pair so that pages are stable when rows are added between requests.
// Missing numbers sort last through coalesce, the same way on both dialects.
const SORTS: Record<AccountSort, { value: RawBuilder<string | number>; direction: 'asc' | 'desc' }> = {
  username: { value: sql`username_key`, direction: 'asc' },
  '-followers': { value: sql`coalesce(followers, -1)`, direction: 'desc' },
  '-followersChange7d': { value: sql`coalesce(followers_change_7d, -9007199254740991)`, direction: 'desc' },
  '-lastCheckedAt': { value: sql`coalesce(last_checked_at, 0)`, direction: 'desc' },
};

/**
 * Rows one filtered page may examine. A rare tag, a status or a prefix matching nothing would
 * otherwise walk every account in sort order (on SQLite, with the event loop held): past this
 * many the page ends early, perhaps empty, with a cursor to go on from where the scan stopped.
 */
export const MAX_SCANNED_ROWS = 5_000;

export async function listAccounts(
  db: Db,
  caps: DialectCapabilities,
  filter: AccountFilter,
): Promise<{ accounts: Account[]; last: [string | number, number] | null; more: boolean }> {
  const sort = SORTS[filter.sort];
  const op = sort.direction === 'asc' ? sql`>` : sql`<`;
  const from = () => {
    let query = db.selectFrom('accounts').where('untracked_at', 'is', null);
    if (filter.after)
      query = query.where(sql<boolean>`(${sort.value}, id) ${op} (${filter.after[0]}, ${filter.after[1]})`);
    return query;
  };
  const filtered = filter.status !== undefined || filter.tag !== undefined || Boolean(filter.prefix);
  // The last row the scan may reach, found through the sort's own index alone.
  const bound = filtered
    ? await from()
        .select([sort.value.as('sort_value'), 'id'])
        .orderBy(sort.value, sort.direction)
        .orderBy('id', sort.direction)
        .limit(1)
        .offset(MAX_SCANNED_ROWS - 1)
        .executeTakeFirst()
    : undefined;
  let query = from().select(ACCOUNT_COLUMNS).select(sort.value.as('sort_value'));
  if (bound)
    query = query.where(
      sql<boolean>`(${sort.value}, id) ${sort.direction === 'asc' ? sql`<=` : sql`>=`} (${bound.sort_value}, ${bound.id})`,
    );
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.platform) query = query.where('platform', '=', filter.platform);
  if (filter.tag !== undefined) query = query.where(caps.jsonArrayContains(sql.ref('tags'), filter.tag));
  if (filter.prefix) {
    const escaped = filter.prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where(sql<boolean>`username_key like ${`${escaped}%`} escape '\\'`);
  }
  const rows = await query
    .orderBy(sort.value, sort.direction)
    .orderBy('id', sort.direction)
    .limit(filter.limit + 1)
    .execute();
  const more = rows.length > filter.limit;
  const page = more ? rows.slice(0, filter.limit) : rows;
  const tail = page.at(-1);
  // The scan stopped at its bound before the page filled: go on from the bound next time.
  if (!more && bound) return { accounts: page.map(toAccount), last: [bound.sort_value, bound.id], more: true };
  return { accounts: page.map(toAccount), last: tail ? [tail.sort_value, tail.id] : null, more };
}

export interface AccountChange {
  paused?: boolean;
  tags?: string[];
  note?: string | null;
}

/** Pause/resume and labels. Resuming makes the account due at once; returns null if not tracked. */
export async function updateAccount(
  db: Db,
  ref: AccountRef,
  change: AccountChange,
  now: number,
): Promise<Account | null> {
  const current = await db
    .selectFrom('accounts')
    .select(['id', 'status', 'last_checked_at', 'untracked_at'])
    .where('platform', '=', ref.platform)
    .where('username_key', '=', ref.key)
    .executeTakeFirst();
  if (!current || current.untracked_at !== null) return null;
  const values: Record<string, unknown> = { updated_at: now };
  if (change.tags !== undefined) values.tags = JSON.stringify(change.tags);
  if (change.note !== undefined) values.note = change.note;
  if (change.paused === true && current.status !== 'paused') {
    Object.assign(values, {
      status: 'paused',
      status_reason: 'paused by an admin',
      next_check_at: null,
      lease_owner: null,
      lease_expires_at: null,
    });
  } else if (change.paused === false && current.status === 'paused') {
    // The tracker restores the real state at its next check; until then a never-checked account is pending.
    Object.assign(values, {
      status: current.last_checked_at === null ? 'pending' : 'active',
      status_reason: null,
      next_check_at: now,
    });
  }
  await db.updateTable('accounts').set(values).where('id', '=', current.id).execute();
  return findAccount(db, ref);
}

/** Stops tracking. Without purge the row and its history stay (a re-import reactivates it). */
export async function untrackAccount(db: Db, ref: AccountRef, purge: boolean, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'untracked_at'])
    .where('platform', '=', ref.platform)
    .where('username_key', '=', ref.key)
    .executeTakeFirst();
  if (!row || (!purge && row.untracked_at !== null)) return false;
  if (purge) {
    await db.deleteFrom('accounts').where('id', '=', row.id).execute();
  } else {
    await db
      .updateTable('accounts')
      .set({ untracked_at: now, next_check_at: null, lease_owner: null, lease_expires_at: null, updated_at: now })
      .where('id', '=', row.id)
      .execute();
  }
  return true;
}
