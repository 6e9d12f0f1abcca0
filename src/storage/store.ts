// Opens the store named by DATABASE_URL and hands out its executors; the only place that picks a dialect.
import type { Kysely } from 'kysely';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { openSqlite, sqliteCapabilities } from './dialects/sqlite.ts';
import { openPostgres, postgresCapabilities } from './dialects/postgres.ts';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';

export interface Store {
  /** Writes, and reads that must see the caller's own writes. */
  readonly db: Kysely<Database>;
  /** Reads that may run beside a long write transaction (SQLite: a second connection). */
  readonly reader: Kysely<Database>;
  readonly caps: DialectCapabilities;
  /** `PRAGMA integrity_check` on SQLite; always ok on PostgreSQL. */
  integrityCheck(): Promise<string>;
  close(): Promise<void>;
}

export interface StoreOptions {
  migrate?: boolean;
  poolSize?: number;
}

export async function openStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  let store: Store;
  if (databaseUrl.startsWith('file:')) {
    const { writer, reader, raw } = openSqlite(databaseUrl.slice('file:'.length));
    store = {
      db: writer,
      reader,
      caps: sqliteCapabilities,
      integrityCheck: async () => String(raw.pragma('integrity_check', { simple: true })),
      close: async () => {
        if (reader !== writer) await reader.destroy();
        await writer.destroy();
      },
    };
  } else {
    const { db } = openPostgres(databaseUrl, options.poolSize ?? 10);
    store = { db, reader: db, caps: postgresCapabilities, integrityCheck: async () => 'ok', close: () => db.destroy() };
  }
  if (options.migrate !== false) {
    try {
      await migrateToLatest(store.db, store.caps);
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  return store;
}
