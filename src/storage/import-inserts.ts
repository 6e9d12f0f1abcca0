// The insert of one chunk of an import's new accounts (imports-repo.ts writes the rest), compiled once
// per chunk size: building and compiling a thousand-row insert cost a third of an import's time.
import type { Insertable, Kysely } from 'kysely';
import type { ImportRow } from '../domain/csv-import.ts';
import { runByShape } from './prepared.ts';
import type { AccountsTable, Database } from './schema.ts';

type Db = Kysely<Database>;

/** A new account's key, as insertChunk returns it. */
export type InsertedKey = { id: number; platform: string; username_key: string };

/** What an import writes of a new account, in the order parametersOf lists it. */
const INSERTED_COLUMNS = [
  'platform',
  'username',
  'username_key',
  'tags',
  'note',
  'tracked_since',
  'next_check_at',
  'created_at',
  'updated_at',
] as const;
export const COLUMNS_PER_ROW = INSERTED_COLUMNS.length;

/** The chunk's values, row after row, in INSERTED_COLUMNS order. */
function parametersOf(chunk: readonly ImportRow[], now: number): unknown[] {
  const values = new Array<unknown>(chunk.length * COLUMNS_PER_ROW);
  let at = 0;
  for (const row of chunk) {
    values[at++] = row.platform;
    values[at++] = row.username;
    values[at++] = row.key;
    values[at++] = row.tags.length === 0 ? '[]' : JSON.stringify(row.tags);
    values[at++] = row.note;
    for (let i = 0; i < 4; i += 1) values[at++] = now;
  }
  return values;
}

/** The insert of the accounts whose values are `values`, row after row; existing ones are skipped. */
function insertStatement(trx: Db, values: readonly unknown[]) {
  const rows: Record<string, unknown>[] = [];
  for (let at = 0; at < values.length; at += COLUMNS_PER_ROW)
    rows.push(Object.fromEntries(INSERTED_COLUMNS.map((column, k) => [column, values[at + k]])));
  return trx
    .insertInto('accounts')
    .values(rows as unknown as Insertable<AccountsTable>[])
    .onConflict((oc) => oc.columns(['platform', 'username_key']).doNothing());
}

/** What a chunk's insert wrote: how many accounts were new, and their keys when they were asked for. */
export interface ChunkInserted {
  count: number;
  keys: InsertedKey[] | null;
}

/**
 * Inserts the chunk's new accounts (the SQL compiled once per chunk size and form); with `withKeys`
 * their keys come back, without it only their number (cheaper: no RETURNING).
 */
export async function insertChunk(
  trx: Db,
  chunk: readonly ImportRow[],
  now: number,
  { withKeys }: { withKeys: boolean },
): Promise<ChunkInserted> {
  const values = parametersOf(chunk, now);
  if (!withKeys) {
    const result = await runByShape(trx, `import-accounts-counted:${chunk.length}`, values, (v) =>
      insertStatement(trx, v),
    );
    return { count: Number(result.numAffectedRows ?? 0), keys: null };
  }
  const result = await runByShape<InsertedKey>(trx, `import-accounts:${chunk.length}`, values, (v) =>
    insertStatement(trx, v).returning(['id', 'platform', 'username_key']),
  );
  const keys = result.rows.map((row) => ({ ...row, id: Number(row.id) }));
  return { count: keys.length, keys };
}
