// The scale-out store: PostgreSQL through a pg pool. Readers and writers share the pool.
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.ts';
import type { DialectCapabilities } from './capabilities.ts';
import { preparedName } from './named-statements.ts';
import { dueNotifications } from './postgres-notify.ts';

export const postgresCapabilities: DialectCapabilities = {
  name: 'postgres',
  autoIdType: 'serial',
  // Two set-returning functions in one select list advance together: the arrays' n-th elements pair up.
  textPairs: (a, b) => sql<{ a: string; b: string }>`(select unnest(${a}::text[]) as a, unnest(${b}::text[]) as b)`,
  skipLocked: true,
  maxParameters: 60_000,
  bytewiseCollation: '"C"',
  // Two imports inserting overlapping names in different orders would deadlock on the unique index;
  // two processes starting at once would each create a first admin key.
  serialize: async (trx, topic) => {
    await sql`select pg_advisory_xact_lock(hashtext(current_schema()), ${LOCKS[topic]})`.execute(trx);
  },
  trySerialize: async (trx, topic) =>
    (
      await sql<{
        ok: boolean;
      }>`select pg_try_advisory_xact_lock(hashtext(current_schema()), ${LOCKS[topic]}) as ok`.execute(trx)
    ).rows[0]?.ok === true,
  jsonArrayElements: (column, alias) =>
    sql`cross join lateral jsonb_array_elements_text((${column})::jsonb) as ${sql.raw(alias)}(value)`,
  indexedBy: () => sql``,
  limitEachArm: true,
  isUniqueViolation: (error) => errorCode(error) === '23505',
  isUnavailable: (error) =>
    UNAVAILABLE_CODES.has(errorCode(error)) ||
    (error instanceof Error &&
      /timeout exceeded when trying to connect|Connection terminated|not queryable|connection error/i.test(
        error.message,
      )),
  isInvalidValue: (error) => errorCode(error).startsWith('22'),
  unloggedTable: sql`unlogged`,
  currentSchema: async (db) =>
    (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema,
  // One function for every counted table (it finds the row by the table's name), once per statement.
  installChangeCounter: async (db, table) => {
    await sql`create or replace function perch_count_change() returns trigger language plpgsql as $$
      begin
        update change_counters set n = n + 1 where name = tg_table_name;
        return null;
      end $$`.execute(db);
    await sql
      .raw(
        `create trigger ${table}_counted after insert or update or delete on ${table} ` +
          `for each statement execute function perch_count_change()`,
      )
      .execute(db);
  },
  ping: async (db) => {
    await sql`select 1`.execute(db);
  },
  dueNotifications,
};

// Connection failures; admin shutdown and restarts (57P0x); too many connections (53300); disk full
// (53100); serialisation, deadlock and lock timeouts; statement timeout (57014): all pass with time.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '53100',
  '40001',
  '40P01',
  '55P03',
  '57014',
  '08000',
  '08003',
  '08006',
]);

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}

/**
 * Advisory lock keys: (the schema's hash, the topic). Advisory locks are database-wide; keyed by
 * schema, two deployments (or test runs) in separate schemas of one database never wait on each other.
 */
const LOCKS = { imports: 0x7065_7201, admin_keys: 0x7065_7202, events: 0x7065_7203 } as const;

// Times are epoch milliseconds in bigint columns; they fit a JS number exactly, so read them as one.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * Kysely sends `query(text, values)`; a text registered in named-statements.ts goes as a named
 * statement instead, which pg parses on the connection once and then only binds and runs. Behind a
 * pooler in transaction mode (PgBouncer, RDS Proxy, Supavisor) each transaction may get another
 * server connection, where that name was never prepared: PREPARED_STATEMENTS=off leaves this out.
 */
function runRegisteredAsNamed(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && args.length <= 2 ? preparedName(text) : undefined;
    return name === undefined ? query(...args) : query({ name, text, values });
  }) as typeof client.query;
}

export interface PostgresHandles {
  db: Kysely<Database>;
}

/** Told of each connection lost (a restart, a failover, a network reset); the pool replaces it. */
export type ConnectionErrorListener = (error: Error) => void;

export function openPostgres(
  connectionString: string,
  poolSize: number,
  onConnectionError: ConnectionErrorListener = () => {},
  namedStatements = true,
): PostgresHandles {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    types,
    connectionTimeoutMillis: 5_000,
    statement_timeout: 30_000,
  });
  // pg-pool listens for 'error' only on idle clients: it removes that listener while a client is
  // checked out, and a connection dropped then (57P01 on a restart) is an unhandled 'error' event
  // that ends the process. Every client gets a listener of its own for its whole life; the query
  // in flight fails on its own (a 503), and the broken client is discarded when it is released.
  pool.on('connect', (client) => {
    client.on('error', onConnectionError);
    if (namedStatements) runRegisteredAsNamed(client);
  });
  // The pool re-emits an idle client's error; the listener above has already been told of it.
  pool.on('error', () => {});
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) };
}
