// Opens the store named by DATABASE_URL and hands out its executors; the only place that picks a dialect.
import type { CompiledQuery, Kysely } from 'kysely';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import type { SqliteFile } from './dialects/sqlite.ts';
import { migrateToLatest } from './migrate.ts';
import type { Database } from './schema.ts';

/** What repository functions take first: the database, or a transaction on it. */
export type Executor = Kysely<Database>;

export interface Store {
  /** Writes, and reads that must see the caller's own writes. */
  readonly db: Kysely<Database>;
  /** Reads that may run beside a long write transaction (SQLite: a second connection). */
  readonly reader: Kysely<Database>;
  readonly caps: DialectCapabilities;
  /** A SQLite store's file, which a worker thread may open a connection of its own to; null otherwise. */
  readonly sqliteFile: SqliteFile | null;
  /**
   * Runs a compiled read on the reader connection at once, without Kysely's connection queue and
   * its promises (SQLite, whose driver answers synchronously); null where reads go over the network.
   */
  readonly readNow: ((query: CompiledQuery) => unknown[]) | null;
  /** `PRAGMA integrity_check` on SQLite; always ok on PostgreSQL. */
  integrityCheck(): Promise<string>;
  /** Moves SQLite's write-ahead log into the database file now (it also happens every few seconds). */
  checkpoint(): Promise<void>;
  /**
   * Calls `onDue` whenever another process (or this one) made accounts due, while it listens;
   * null when the store cannot tell (SQLite: trackers poll). `onError` hears lost connections.
   */
  listenForDue(onDue: () => void, onError: (error: unknown) => void): Promise<{ close(): Promise<void> } | null>;
  close(): Promise<void>;
}

export interface StoreOptions {
  migrate?: boolean;
  poolSize?: number;
  /** Told when a PostgreSQL connection is lost (the process carries on; requests get 503 until it is back). */
  onConnectionError?: (error: Error) => void;
  /**
   * SQLite: how long a statement may wait for another process's write lock, holding the event loop
   * meanwhile. Servers pass a short one (SERVER_BUSY_TIMEOUT_MS); commands keep the default.
   */
  busyTimeoutMs?: number;
  /**
   * PostgreSQL: keep the hottest statements prepared on each connection (named statements). Off
   * behind a pooler in transaction mode, which hands each transaction another server connection.
   */
  preparedStatements?: boolean;
}

/** A server's wait for another process's SQLite write lock; past it the request gets 503. */
export const SERVER_BUSY_TIMEOUT_MS = 50;

export async function openStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  let store: Store;
  // Each dialect (and its driver) is loaded by the processes that use it: a SQLite server never
  // loads pg, a PostgreSQL one never loads better-sqlite3.
  if (databaseUrl.startsWith('file:')) {
    const { openSqlite, sqliteCapabilities } = await import('./dialects/sqlite.ts');
    const sqlite = openSqlite(databaseUrl.slice('file:'.length), options.busyTimeoutMs);
    store = {
      db: sqlite.writer,
      reader: sqlite.reader,
      readNow: sqlite.readNow,
      caps: sqliteCapabilities,
      sqliteFile: sqlite.file,
      integrityCheck: async () => sqlite.integrityCheck(),
      checkpoint: async () => {
        await sqlite.checkpoint();
      },
      listenForDue: async () => null,
      close: sqlite.close,
    };
  } else {
    const [{ openPostgres, postgresCapabilities }, { listenOnChannel }] = await Promise.all([
      import('./dialects/postgres.ts'),
      import('./dialects/postgres-notify.ts'),
    ]);
    const { db } = openPostgres(
      databaseUrl,
      options.poolSize ?? 10,
      options.onConnectionError,
      options.preparedStatements !== false,
    );
    const listenForDue = async (onDue: () => void, onError: (error: unknown) => void) => {
      const channel = await postgresCapabilities.dueNotifications!.channel(db);
      return listenOnChannel(databaseUrl, channel, onDue, onError);
    };
    store = {
      db,
      reader: db,
      readNow: null,
      caps: postgresCapabilities,
      sqliteFile: null,
      integrityCheck: async () => 'ok',
      checkpoint: async () => {},
      listenForDue,
      close: () => db.destroy(),
    };
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
