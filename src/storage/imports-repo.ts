// Writes an import's accounts (with their tag rows and counts) and the record of the import, inside
// the transaction the import use case opened (services/import-accounts.ts; imports-list.ts lists
// them). Rows go in chunks, and the event loop gets a turn between chunks, so a million-row import
// never stops the server from answering (SQLite reads use their own connection meanwhile).
import { sql, type Kysely } from 'kysely';
import type { ImportRow } from '../domain/csv-import.ts';
import type { Platform } from '../domain/platforms.ts';
import { ALL_ACCOUNTS, applyCountChanges, CountChanges } from './account-counts-repo.ts';
import { syncTagRows } from './account-tags-repo.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { COLUMNS_PER_ROW, insertChunk, type ChunkInserted, type InsertedKey } from './import-inserts.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface ImportCounts {
  inserted: number;
  reactivated: number;
  alreadyTracked: number;
}

export interface ImportMeta {
  id: string;
  actor: string | null;
  source: string;
  received: number;
  duplicates: number;
  rejectedCount: number;
  startedAt: number;
  now: () => number;
  onProgress?: (written: number, total: number) => void;
}

/**
 * Inserts new accounts, reactivates untracked ones, counts the rest, and records the import. Call
 * it inside a transaction: all or nothing is the caller's to guarantee. The accounts' tag rows
 * are written chunk by chunk; the change to the counts once, at the end (account-counts-repo.ts).
 */
export async function writeImport(
  trx: Db,
  caps: DialectCapabilities,
  rows: readonly ImportRow[],
  meta: ImportMeta,
): Promise<ImportCounts> {
  const chunkSize = Math.min(1_000, Math.floor(caps.maxParameters / COLUMNS_PER_ROW));
  const counts: ImportCounts = { inserted: 0, reactivated: 0, alreadyTracked: 0 };
  const changes = new CountChanges();
  const now = meta.now();
  for (let start = 0; start < rows.length; start += chunkSize) {
    const chunk = rows.slice(start, start + chunkSize);
    const tagged = hasTags(chunk);
    // Untagged names of one platform need no ids back: the insert only counts them.
    const inserted = await insertChunk(trx, chunk, now, { withKeys: tagged || !onePlatform(chunk) });
    counts.inserted += inserted.count;
    addPending(changes, chunk, inserted);
    // Rows the insert skipped were there already. A row it just wrote is never untracked, so
    // without the inserted keys the whole chunk can be asked about: reactivate skips those.
    const existing = inserted.count === chunk.length ? [] : inserted.keys ? notIn(chunk, inserted.keys) : chunk;
    const reactivated = existing.length === 0 ? [] : await reactivate(trx, existing, now);
    counts.reactivated += reactivated.length;
    counts.alreadyTracked += chunk.length - inserted.count - reactivated.length;
    for (const row of reactivated) {
      changes.add(ALL_ACCOUNTS, row.platform, row.status, 1);
      changes.addFollowers(ALL_ACCOUNTS, row.followers);
    }
    const retag = [
      ...(inserted.keys ? taggedIds(chunk, inserted.keys) : []),
      ...reactivated.map((r) => r.id),
      ...(tagged ? await addTags(trx, existing, now) : []),
    ];
    if (retag.length > 0) await syncTagRows(trx, caps, [...new Set(retag)], changes);
    await setFollowerLists(trx, chunk, now);
    meta.onProgress?.(start + chunk.length, rows.length);
    await yieldToEventLoop();
  }
  await applyCountChanges(trx, changes, now);
  await trx
    .insertInto('imports')
    .values({
      id: meta.id,
      created_at: meta.startedAt,
      created_by: meta.actor,
      source: meta.source,
      received: meta.received,
      accepted: rows.length,
      inserted: counts.inserted,
      reactivated: counts.reactivated,
      already_tracked: counts.alreadyTracked,
      duplicates: meta.duplicates,
      rejected_count: meta.rejectedCount,
      duration_ms: meta.now() - meta.startedAt,
    })
    .execute();
  return counts;
}

/** The file's `follower_list` cells, new and existing accounts alike (an empty cell leaves it). */
async function setFollowerLists(trx: Db, chunk: readonly ImportRow[], now: number): Promise<void> {
  const groups = new Map<string, { platform: Platform; on: boolean; keys: string[] }>();
  for (const row of chunk) {
    if (row.followerList === undefined) continue;
    const id = `${row.platform}:${row.followerList}`;
    const group = groups.get(id) ?? { platform: row.platform, on: row.followerList, keys: [] };
    groups.set(id, group);
    group.keys.push(row.key);
  }
  for (const { platform, on, keys } of groups.values())
    await trx
      .updateTable('accounts')
      .set({ follower_list: on ? 1 : 0, updated_at: now })
      .where('platform', '=', platform)
      .where('username_key', 'in', keys)
      .execute();
}

function hasTags(chunk: readonly ImportRow[]): boolean {
  for (const row of chunk) if (row.tags.length > 0) return true;
  return false;
}

function onePlatform(chunk: readonly ImportRow[]): boolean {
  const first = chunk[0]?.platform;
  for (const row of chunk) if (row.platform !== first) return false;
  return true;
}

/** The new accounts are pending: counted per platform (a counted insert's chunk has one), not one change per row. */
function addPending(changes: CountChanges, chunk: readonly ImportRow[], inserted: ChunkInserted): void {
  if (inserted.keys === null) {
    const platform = chunk[0]?.platform;
    if (platform !== undefined && inserted.count > 0) changes.add(ALL_ACCOUNTS, platform, 'pending', inserted.count);
    return;
  }
  const perPlatform = new Map<string, number>();
  for (const row of inserted.keys) perPlatform.set(row.platform, (perPlatform.get(row.platform) ?? 0) + 1);
  for (const [platform, n] of perPlatform) changes.add(ALL_ACCOUNTS, platform, 'pending', n);
}

/** The new accounts of the chunk that came with tags. */
function taggedIds(chunk: readonly ImportRow[], inserted: readonly InsertedKey[]): number[] {
  const tagged = new Set(chunk.filter((row) => row.tags.length > 0).map((row) => `${row.platform}:${row.key}`));
  return tagged.size === 0
    ? []
    : inserted.filter((r) => tagged.has(`${r.platform}:${r.username_key}`)).map((r) => r.id);
}

function notIn(chunk: readonly ImportRow[], inserted: readonly InsertedKey[]): ImportRow[] {
  const keys = new Set(inserted.map((r) => `${r.platform}:${r.username_key}`));
  return chunk.filter((row) => !keys.has(`${row.platform}:${row.key}`));
}

/** Accounts an admin had stopped tracking come back, due at once, with their history; a pause ends too. */
async function reactivate(
  trx: Db,
  rows: readonly ImportRow[],
  now: number,
): Promise<{ id: number; platform: string; status: string; followers: number }[]> {
  const byPlatform = new Map<Platform, string[]>();
  for (const row of rows) {
    const keys = byPlatform.get(row.platform);
    if (keys) keys.push(row.key);
    else byPlatform.set(row.platform, [row.key]);
  }
  const back: { id: number; platform: string; status: string; followers: number }[] = [];
  for (const [platform, keys] of byPlatform) {
    const result = await trx
      .updateTable('accounts')
      .set({
        untracked_at: null,
        next_check_at: now,
        tracked_since: now,
        updated_at: now,
        status: sql<string>`case when status = 'paused' then (case when last_checked_at is null then 'pending' else 'active' end) else status end`,
        status_reason: sql<string | null>`case when status = 'paused' then null else status_reason end`,
      })
      .where('platform', '=', platform)
      .where('username_key', 'in', keys)
      .where('untracked_at', 'is not', null)
      .returning(['id', 'platform', 'status', 'followers'])
      .execute();
    back.push(...result.map((row) => ({ ...row, id: Number(row.id), followers: Number(row.followers ?? 0) })));
  }
  return back;
}

/**
 * Tags in the file are added to accounts that were already there (never removed: PATCH replaces
 * tags). Sending the same file again finds nothing to add, so it still changes nothing. Returns
 * the ids of the accounts that got new tags.
 */
async function addTags(trx: Db, rows: readonly ImportRow[], now: number): Promise<number[]> {
  const changed: number[] = [];
  const tagged = rows.filter((row) => row.tags.length > 0);
  for (const platform of new Set(tagged.map((row) => row.platform))) {
    const wanted = new Map(tagged.filter((row) => row.platform === platform).map((row) => [row.key, row.tags]));
    const current = await trx
      .selectFrom('accounts')
      .select(['id', 'username_key', 'tags'])
      .where('platform', '=', platform)
      .where('username_key', 'in', [...wanted.keys()])
      .execute();
    for (const account of current) {
      const tags = JSON.parse(account.tags) as string[];
      const merged = [...new Set([...tags, ...(wanted.get(account.username_key) ?? [])])];
      if (merged.length > tags.length) {
        await trx
          .updateTable('accounts')
          .set({ tags: JSON.stringify(merged), updated_at: now })
          .where('id', '=', account.id)
          .execute();
        changed.push(account.id);
      }
    }
  }
  return changed;
}
