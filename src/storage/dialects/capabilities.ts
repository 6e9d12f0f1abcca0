// What differs between the SQL dialects, as data and small SQL fragments. Repositories ask this
// object instead of testing the dialect's name, so every difference is listed here.
import type { Expression, Kysely, RawBuilder } from 'kysely';
import type { Database } from '../schema.ts';

export interface DialectCapabilities {
  readonly name: 'sqlite' | 'postgres';
  /** Column type and constraint for an auto-numbered primary key (used by migrations). */
  readonly autoIdType: 'integer' | 'serial';
  /**
   * `FOR UPDATE SKIP LOCKED` (and so plain `FOR UPDATE`) exists (PostgreSQL); SQLite serialises
   * writers instead, so a read inside a write transaction is already the current row.
   */
  readonly skipLocked: boolean;
  /** Bound parameters one statement may carry; chunked writes stay under it. */
  readonly maxParameters: number;
  /**
   * A `from` item joined to the rows before it: the elements of the JSON array of strings in
   * `column`, one row each, as `<alias>.value` (the tag rows are made from the stored tags so).
   */
  jsonArrayElements(column: Expression<string>, alias: string): RawBuilder<unknown>;
  /**
   * Names the index a list query's order comes from (SQLite: `INDEXED BY`, an error at prepare
   * time if that index cannot serve the query, never a silent scan). Without statistics SQLite's
   * planner takes the unique (platform, username_key) index for a prefix range with ORDER BY and
   * LIMIT and filters the status row by row. PostgreSQL has no such clause and needs none: its
   * plans of the same queries are asserted in test/storage/filter-plan.test.ts.
   */
  indexedBy(index: string): RawBuilder<unknown>;
  /**
   * Whether each arm of a union of ordered index ranges takes the page's LIMIT itself
   * (storage/list-arms.ts). PostgreSQL (15) merges the arms' ordered scans (Merge Append) only
   * when each is limited; unlimited, without statistics, it appends them and sorts all they match.
   * SQLite merges the arms of a compound SELECT as their indexes deliver them and stops at the
   * compound's LIMIT; a limited arm would be a subquery whose rows it reads whole and sorts again.
   */
  readonly limitEachArm: boolean;
  /** Collation that orders text by bytes, as SQLite does, so both dialects sort names alike. */
  readonly bytewiseCollation: string;
  /**
   * Makes transactions on the same `topic` take turns until they end (PostgreSQL: a transaction
   * advisory lock; SQLite: one writer anyway): concurrent imports, and admin-key changes that
   * must see each other (the first-run key, the last admin key), and event writers, so that events
   * commit in the order of their `seq` (a poller never skips one that commits late).
   */
  serialize(trx: Kysely<Database>, topic: 'imports' | 'admin_keys' | 'events'): Promise<void>;
  /**
   * Like `serialize`, but returns false at once when another transaction holds the topic, instead
   * of holding a connection while it waits (an import behind a million-row import answers 409).
   */
  trySerialize(trx: Kysely<Database>, topic: 'imports'): Promise<boolean>;
  /** The error is a unique-constraint violation (a concurrent insert won the race). */
  isUniqueViolation(error: unknown): boolean;
  /** The error means the store cannot be reached or is busy: worth a 503 and a retry. */
  isUnavailable(error: unknown): boolean;
  /** The schema new tables go to (PostgreSQL's search_path), so migrations never look at another. */
  currentSchema(db: Kysely<Database>): Promise<string | undefined>;
  /** The store refused a value (PostgreSQL's class 22: a NUL in text, a number out of range…): the client's fault. */
  isInvalidValue(error: unknown): boolean;
  /** Prefix that makes a table skip the write-ahead log (PostgreSQL `unlogged`), or null. */
  readonly unloggedTable: RawBuilder<unknown> | null;
  /**
   * How the store tells every process that accounts became due (an import, a refresh, a released
   * lease), so idle trackers wake at once instead of at their next poll; null where trackers poll
   * (SQLite: one process writes, and it wakes its own tracker directly).
   */
  readonly dueNotifications: DueNotifications | null;
  /**
   * The table `(a, b)` of two text arrays bound as two parameters, pair by pair, where lookups of
   * single rows arriving together are worth gathering into one query (PostgreSQL: each query is a
   * network round trip and a wakeup of the server's backend). Null on SQLite, which answers inside
   * the call: there is nothing to gather.
   */
  readonly textPairs: ((a: readonly string[], b: readonly string[]) => RawBuilder<{ a: string; b: string }>) | null;
  /**
   * Installs triggers that add one to `change_counters.n` (the row named `table`) whenever a
   * statement inserts, updates or deletes rows of `table`, in the writer's transaction.
   */
  installChangeCounter(db: Kysely<any>, table: string): Promise<void>; // eslint-disable-line @typescript-eslint/no-explicit-any -- runs inside a migration
  /** Cheap query proving the store answers. */
  ping(db: Kysely<Database>): Promise<void>;
}

export interface DueNotifications {
  /** Installs what sends the notifications (a migration runs it once). */
  install(db: Kysely<any>): Promise<void>; // eslint-disable-line @typescript-eslint/no-explicit-any -- runs inside a migration
  /** The channel of the store `db` works in (one per schema, so schemas sharing a server stay apart). */
  channel(db: Kysely<Database>): Promise<string>;
}
