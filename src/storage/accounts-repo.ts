// Reads and admin changes of tracked accounts (the filtered list is in accounts-list.ts). Functions
// take the executor first, so they compose inside a caller's transaction.
import type { Kysely } from 'kysely';
import type { Account, AccountRef } from '../domain/account.ts';
import type { Platform } from '../domain/platforms.ts';
import { ALL_ACCOUNTS, applyCountChanges, CountChanges } from './account-counts-repo.ts';
import { syncTagRows } from './account-tags-repo.ts';
import { ACCOUNT_COLUMNS, toAccount, toAccountJson, type AccountRow } from './accounts-map.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { gatheredAccountRow } from './gathered-account-lookups.ts';
import { preparedCompile, preparedQuery } from './prepared.ts';
import type { Database } from './schema.ts';
import type { Store } from './store.ts';

type ReadNow = NonNullable<Store['readNow']>;

type Db = Kysely<Database>;

// Lookups by name say only `platform = ? and username_key = ?`: that matches the unique index
// (platform, username_key) exactly, so PostgreSQL takes it whatever its statistics say. With
// `untracked_at is null` in the query too, a table without statistics (right after an import,
// before any ANALYZE) looked cheaper through a partial index led by (platform, status), which walks
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

// The same, compiled for a read run at once on SQLite's reader connection (Store.readNow).
const compiledAccountByName = preparedCompile((db: Db, platform: string, key: string) =>
  selectAccountByName(db, { platform: platform as Platform, key }),
);

/** One tracked account's row, or null (untracked accounts are hidden until re-imported). */
async function findAccountRow(db: Db, ref: AccountRef): Promise<AccountRow | null> {
  const [row] = await accountByName(db, ref.platform, ref.key);
  return row === undefined || row.untracked_at !== null ? null : row;
}

/** findAccountRow without a wait, where the store reads synchronously. */
function readAccountRow(db: Db, readNow: ReadNow, ref: AccountRef): AccountRow | null {
  const [row] = readNow(compiledAccountByName(db, ref.platform, ref.key)) as (AccountRow & {
    untracked_at: number | null;
  })[];
  return row === undefined || row.untracked_at !== null ? null : row;
}

/** One tracked account, or null (untracked accounts are hidden until re-imported). */
export async function findAccount(db: Db, ref: AccountRef): Promise<Account | null> {
  const row = await findAccountRow(db, ref);
  return row === null ? null : toAccount(row);
}

/**
 * One tracked account as the API's JSON, written from the stored text (toAccountJson), or as an
 * Account when its stored form does not allow that; null when it is not tracked. On SQLite (`readNow`)
 * the row is read at once; where the dialect says so (PostgreSQL), lookups arriving together share
 * one query.
 */
export async function findAccountJson(
  db: Db,
  caps: DialectCapabilities,
  ref: AccountRef,
  isStale: (observedAt: string) => boolean,
  readNow: ReadNow | null = null,
): Promise<{ json: string } | Account | null> {
  const row =
    readNow !== null
      ? readAccountRow(db, readNow, ref)
      : caps.textPairs === null
        ? await findAccountRow(db, ref)
        : await gatheredAccountRow(db, caps.textPairs, ref);
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

export interface AccountChange {
  paused?: boolean;
  tags?: string[];
  note?: string | null;
}

/** The row an admin change starts from, locked where the dialect locks rows (its counts depend on it). */
async function currentRow(db: Db, caps: DialectCapabilities, ref: AccountRef) {
  let query = db
    .selectFrom('accounts')
    .select(['id', 'platform', 'status', 'tags', 'last_checked_at', 'untracked_at', 'followers'])
    .where('platform', '=', ref.platform)
    .where('username_key', '=', ref.key);
  if (caps.skipLocked) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * Pause/resume and labels. Resuming makes the account due at once; returns null if not tracked.
 * The tag rows and the counts change with it.
 */
export async function updateAccount(
  db: Db,
  caps: DialectCapabilities,
  ref: AccountRef,
  change: AccountChange,
  now: number,
): Promise<Account | null> {
  const current = await currentRow(db, caps, ref);
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
  if (values.status !== undefined || values.tags !== undefined) {
    const changes = new CountChanges();
    changes.move(current.platform, current.status, String(values.status ?? current.status), []);
    await syncTagRows(db, caps, [current.id], changes);
    await applyCountChanges(db, changes, now);
  }
  return findAccount(db, ref);
}

/** Stops tracking. Without purge the row and its history stay (a re-import reactivates it). */
export async function untrackAccount(
  db: Db,
  caps: DialectCapabilities,
  ref: AccountRef,
  purge: boolean,
  now: number,
): Promise<boolean> {
  const row = await currentRow(db, caps, ref);
  if (!row || (!purge && row.untracked_at !== null)) return false;
  if (purge) {
    await db.deleteFrom('accounts').where('id', '=', row.id).execute();
    // Its follower identities, passes and live follow records have no foreign key: they go here.
    for (const table of ['followers', 'follower_passes', 'follow_records'] as const)
      await db.deleteFrom(table).where('account_id', '=', row.id).execute();
  } else {
    await db
      .updateTable('accounts')
      .set({ untracked_at: now, next_check_at: null, lease_owner: null, lease_expires_at: null, updated_at: now })
      .where('id', '=', row.id)
      .execute();
  }
  // Untracked accounts are counted nowhere and keep no tag rows.
  const changes = new CountChanges();
  if (row.untracked_at === null) {
    changes.add(ALL_ACCOUNTS, row.platform, row.status, -1);
    changes.addFollowers(ALL_ACCOUNTS, -Number(row.followers ?? 0));
  }
  await syncTagRows(db, caps, [row.id], changes);
  await applyCountChanges(db, changes, now);
  return true;
}
