// The embedded store: better-sqlite3 in WAL mode, one writer connection and one reader connection.
// WAL lets the reader answer while a long import holds the write lock; Kysely queues writers on the
// writer connection asynchronously, so a write waiting behind an import never blocks the event loop.
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type CompiledQuery } from 'kysely';
import type { Database } from '../schema.ts';
import type { DialectCapabilities } from './capabilities.ts';
import { WalCheckpointer, type CheckpointResult } from './sqlite-checkpointer.ts';

export const sqliteCapabilities: DialectCapabilities = {
  name: 'sqlite',
  autoIdType: 'integer',
  textPairs: null,
  skipLocked: false,
  unloggedTable: null,
  dueNotifications: null,
  maxParameters: 32_000,
  bytewiseCollation: 'binary',
  serialize: async () => {},
  // One writer connection: a second import queues behind the first without holding anything.
  trySerialize: async () => true,
  jsonArrayElements: (column, alias) => sql`, json_each(${column}) as ${sql.raw(alias)}`,
  indexedBy: (index) => sql.raw(`indexed by ${index}`),
  limitEachArm: false,
  isUniqueViolation: (error) =>
    errorCode(error).startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') ||
    errorCode(error).startsWith('SQLITE_CONSTRAINT_UNIQUE'),
  isUnavailable: (error) =>
    ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL'].some((c) =>
      errorCode(error).startsWith(c),
    ),
  isInvalidValue: (error) =>
    errorCode(error).startsWith('SQLITE_MISMATCH') || errorCode(error).startsWith('SQLITE_TOOBIG'),
  currentSchema: async () => undefined,
  // A trigger per kind of change, for each row (SQLite has no statement triggers).
  installChangeCounter: async (db, table) => {
    for (const change of ['insert', 'update', 'delete'])
      await sql
        .raw(
          `create trigger ${table}_${change}_counted after ${change} on ${table} for each row begin ` +
            `update change_counters set n = n + 1 where name = '${table}'; end`,
        )
        .execute(db);
  },
  ping: async (db) => {
    await sql`select 1`.execute(db);
  },
};

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}

type Connection = InstanceType<typeof BetterSqlite3>;

function open(path: string, readonly: boolean, busyTimeoutMs: number): Connection {
  const connection = new BetterSqlite3(path, { readonly: readonly && path !== ':memory:' });
  connection.pragma('journal_mode = WAL');
  connection.pragma('foreign_keys = ON');
  // SQLite waits for another process's write lock by sleeping inside the call, which on
  // better-sqlite3 is the event loop: a server keeps this short (a write behind `perch import`
  // answers 503 at once), while a command line may wait seconds.
  connection.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // NORMAL is durable against a crashed process in WAL mode; only a power cut may drop the last commits.
  connection.pragma('synchronous = NORMAL');
  // Checkpoints run on a worker thread (sqlite-checkpointer.ts), never inside our COMMITs.
  connection.pragma('wal_autocheckpoint = 0');
  connection.pragma(`journal_size_limit = ${64 * 1_048_576}`);
  return withStatementCache(connection);
}

/** Kysely prepares every query anew; reusing prepared statements halves the cost of hot reads. */
function withStatementCache(connection: Connection): Connection {
  const cache = new Map<string, ReturnType<Connection['prepare']>>();
  const prepare = connection.prepare.bind(connection);
  connection.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (statement === undefined) {
      statement = prepare(source);
      if (cache.size >= 500) cache.clear();
      cache.set(source, statement);
    }
    return statement;
  }) as Connection['prepare'];
  return connection;
}

/** A read run at once on one connection: better-sqlite3 answers synchronously, so no queue is needed. */
export type ReadNow = (query: CompiledQuery) => unknown[];

function readNowOn(connection: Connection): ReadNow {
  // The same prepared statement Kysely's driver would use (withStatementCache), run without its
  // connection mutex: the reader never holds a transaction or an open iterator across a wait.
  return (query) => connection.prepare(query.sql).all(...(query.parameters as unknown[]));
}

/** Where a SQLite store lies, for a thread that opens its own connection to it (null: in memory). */
export interface SqliteFile {
  path: string;
  busyTimeoutMs: number;
  /**
   * The `wal_autocheckpoint` a connection of the store's takes: 0 while the checkpointer's thread
   * runs, 1000 once it has ended (openSqlite changes it then); a thread is sent the value at the
   * moment it is sent the file.
   */
  walAutocheckpoint: number;
}

export interface SqliteHandles {
  writer: Kysely<Database>;
  file: SqliteFile | null;
  reader: Kysely<Database>;
  /** Runs a compiled read on the reader connection at once (see Store.readNow). */
  readNow: ReadNow;
  /** `PRAGMA integrity_check` on the writer connection. */
  integrityCheck(): string;
  checkpoint(): Promise<CheckpointResult | null>;
  close(): Promise<void>;
}

/** How long a connection waits for another process's write lock; see open(). */
export const CLI_BUSY_TIMEOUT_MS = 5_000;

export function openSqlite(path: string, busyTimeoutMs = CLI_BUSY_TIMEOUT_MS): SqliteHandles {
  if (path === ':memory:') {
    // An in-memory database exists once per connection: no separate reader, no WAL to checkpoint.
    const raw = open(path, false, busyTimeoutMs);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
    return {
      writer: db,
      file: null,
      reader: db,
      readNow: readNowOn(raw),
      integrityCheck: () => String(raw.pragma('integrity_check', { simple: true })),
      checkpoint: async () => null,
      close: () => db.destroy(),
    };
  }
  mkdirSync(dirname(path), { recursive: true });
  const rawWriter = open(path, false, busyTimeoutMs);
  // API key hashes and account data: readable by the owner only (SQLite gives its -wal and -shm
  // files the database file's permissions).
  chmodSync(path, 0o600);
  const rawReader = open(path, true, busyTimeoutMs);
  const writer = new Kysely<Database>({ dialect: new SqliteDialect({ database: rawWriter }) });
  const reader = new Kysely<Database>({ dialect: new SqliteDialect({ database: rawReader }) });
  const checkpointer = new WalCheckpointer(path);
  const file: SqliteFile = { path, busyTimeoutMs, walAutocheckpoint: 0 };
  checkpointer.onExit = () => {
    file.walAutocheckpoint = 1000;
    rawWriter.pragma(`wal_autocheckpoint = ${file.walAutocheckpoint}`);
  };
  return {
    writer,
    file,
    reader,
    readNow: readNowOn(rawReader),
    integrityCheck: () => String(rawWriter.pragma('integrity_check', { simple: true })),
    checkpoint: () => checkpointer.checkpoint(),
    close: async () => {
      await checkpointer.close();
      await reader.destroy();
      await writer.destroy();
      // Kysely closes only connections it has used; a reader never asked anything stays open otherwise.
      if (rawReader.open) rawReader.close();
      if (rawWriter.open) rawWriter.close();
    },
  };
}

/**
 * A writer connection of its own to the store's file, with the pragmas of every connection, for a
 * worker thread (a large import writes on one, services/import-write.worker.ts); its COMMITs
 * checkpoint as the store's writer does, once the checkpointer's thread has ended.
 */
export function openSqliteWriter({ path, busyTimeoutMs, walAutocheckpoint }: SqliteFile): Kysely<Database> {
  const connection = open(path, false, busyTimeoutMs);
  connection.pragma(`wal_autocheckpoint = ${walAutocheckpoint}`);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
}
