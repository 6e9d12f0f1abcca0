// API keys at rest: only the keyed hash and the first characters are stored, never the key.
import type { Kysely, Selectable } from 'kysely';
import type { Role } from '../domain/roles.ts';
import type { ApiKeysTable, Database } from './schema.ts';
import { isoTime } from './times.ts';

type Db = Kysely<Database>;

export interface ApiKey {
  id: string;
  role: Role;
  username: string;
  name: string | null;
  start: string;
  createdAt: string;
  createdBy: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export function toApiKey(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: row.id,
    role: row.role as Role,
    username: row.username,
    name: row.name,
    start: row.start,
    createdAt: new Date(row.created_at).toISOString(),
    createdBy: row.created_by,
    expiresAt: isoTime(row.expires_at),
    revokedAt: isoTime(row.revoked_at),
    lastUsedAt: isoTime(row.last_used_at),
  };
}

export interface NewApiKey {
  id: string;
  keyHash: string;
  start: string;
  role: Role;
  username: string;
  name: string | null;
  createdBy: string | null;
  expiresAt: number | null;
  now: number;
}

export async function insertApiKey(db: Db, key: NewApiKey): Promise<ApiKey> {
  const row = await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      key_hash: key.keyHash,
      start: key.start,
      role: key.role,
      username: key.username,
      name: key.name,
      created_at: key.now,
      created_by: key.createdBy,
      expires_at: key.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toApiKey(row);
}

/** The stored row for a presented key's hash, whatever its state (the caller judges validity). */
export async function findApiKeyByHash(db: Db, keyHash: string): Promise<Selectable<ApiKeysTable> | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findApiKey(db: Db, id: string): Promise<ApiKey | null> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toApiKey(row) : null;
}

export async function listApiKeys(
  db: Db,
  options: { includeRevoked: boolean; limit: number; after?: string },
): Promise<ApiKey[]> {
  let query = db.selectFrom('api_keys').selectAll();
  if (!options.includeRevoked) query = query.where('revoked_at', 'is', null);
  if (options.after) query = query.where('id', '>', options.after);
  const rows = await query.orderBy('id').limit(options.limit).execute();
  return rows.map(toApiKey);
}

export async function countActiveAdminKeys(db: Db, now: number): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('role', '=', 'admin')
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Marks a key revoked; false when it does not exist or was already revoked. */
export async function revokeApiKey(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Coarse last-used time: only written when the stored value is older than `coarseMs`. */
export async function touchApiKey(db: Db, id: string, now: number, coarseMs: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now - coarseMs)]))
    .execute();
}
