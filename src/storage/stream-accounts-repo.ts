// What Jetstream frames change in the accounts table: the tracked DIDs the shards carry, the
// accounts a batch of frames names, checks made due at once (a handle or profile to read again),
// and statuses from account frames (with the filter bookkeeping every status writer keeps).
import type { Kysely } from 'kysely';
import type { AccountStatus } from '../domain/account.ts';
import { applyCountChanges, CountChanges } from './account-counts-repo.ts';
import { syncTagRows } from './account-tags-repo.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Ids per statement, well under every dialect's parameter limit. */
const CHUNK = 1_000;

/** A tracked account as a frame's effects need it. */
export interface StreamAccount {
  id: number;
  username: string;
  platformUserId: string;
  status: AccountStatus;
}

/** The DIDs of tracked, not paused Bluesky accounts, sorted. */
export async function trackedDids(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('accounts')
    .select('platform_user_id')
    .where('platform', '=', 'bluesky')
    .where('platform_user_id', 'is not', null)
    .where('untracked_at', 'is', null)
    .where('status', '<>', 'paused')
    .orderBy('platform_user_id')
    .execute();
  return rows.map((r) => r.platform_user_id!);
}

/** Tracked Bluesky accounts by DID (frames of other DIDs change nothing). */
export async function accountsByDid(db: Db, dids: readonly string[]): Promise<Map<string, StreamAccount>> {
  const found = new Map<string, StreamAccount>();
  const unique = [...new Set(dids)];
  for (let at = 0; at < unique.length; at += CHUNK) {
    const rows = await db
      .selectFrom('accounts')
      .select(['id', 'username', 'platform_user_id', 'status'])
      .where('platform', '=', 'bluesky')
      .where('platform_user_id', 'in', unique.slice(at, at + CHUNK))
      .where('untracked_at', 'is', null)
      .execute();
    for (const row of rows)
      found.set(row.platform_user_id!, {
        id: row.id,
        username: row.username,
        platformUserId: row.platform_user_id!,
        status: row.status as AccountStatus,
      });
  }
  return found;
}

/** Makes accounts due at once (the caller wakes the tracker); paused ones stay as they are. */
export async function makeDue(db: Db, ids: readonly number[], now: number): Promise<void> {
  for (let at = 0; at < ids.length; at += CHUNK)
    await db
      .updateTable('accounts')
      .set({ next_check_at: now, updated_at: now })
      .where('id', 'in', ids.slice(at, at + CHUNK))
      .where('untracked_at', 'is', null)
      .where('status', '<>', 'paused')
      .execute();
}

/** Makes the accounts of these DIDs due at once: a gap's backfill reads their timelines. */
export async function makeDueByDid(db: Db, dids: readonly string[], now: number): Promise<void> {
  for (let at = 0; at < dids.length; at += CHUNK)
    await db
      .updateTable('accounts')
      .set({ next_check_at: now, updated_at: now })
      .where('platform', '=', 'bluesky')
      .where('platform_user_id', 'in', dids.slice(at, at + CHUNK))
      .where('untracked_at', 'is', null)
      .where('status', '<>', 'paused')
      .execute();
}

/** Of these DIDs' accounts, how many have not been checked since `since` (a gap's backfill left to do). */
export async function countUncheckedSince(db: Db, dids: readonly string[], since: number): Promise<number> {
  let left = 0;
  for (let at = 0; at < dids.length; at += CHUNK) {
    const row = await db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('platform', '=', 'bluesky')
      .where('platform_user_id', 'in', dids.slice(at, at + CHUNK))
      .where('untracked_at', 'is', null)
      .where('status', 'in', ['active', 'protected', 'error'])
      .where((eb) => eb.or([eb('last_checked_at', 'is', null), eb('last_checked_at', '<', since)]))
      .executeTakeFirst();
    left += Number(row?.n ?? 0);
  }
  return left;
}

export interface StatusChange {
  account: StreamAccount;
  to: AccountStatus;
  reason: string;
}

/**
 * Writes statuses from account frames, each only while the account is still in the status the
 * frame's batch read (a check or an admin that changed it meanwhile wins), with its tag rows and
 * counts. Returns the changes written.
 */
export async function writeStreamStatuses(
  db: Db,
  caps: DialectCapabilities,
  changes: readonly StatusChange[],
  now: number,
): Promise<StatusChange[]> {
  const written: StatusChange[] = [];
  const counts = new CountChanges();
  for (const change of changes) {
    const result = await db
      .updateTable('accounts')
      .set({ status: change.to, status_reason: change.reason, updated_at: now })
      .where('id', '=', change.account.id)
      .where('status', '=', change.account.status)
      .where('untracked_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) continue;
    written.push(change);
    counts.move('bluesky', change.account.status, change.to, []);
  }
  if (written.length === 0) return written;
  await syncTagRows(
    db,
    caps,
    written.map((c) => c.account.id),
    counts,
  );
  await applyCountChanges(db, counts, now);
  return written;
}
