// The scale-out store: PostgreSQL through a pg pool. Readers and writers share the pool.
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.ts';
import type { DialectCapabilities } from './capabilities.ts';
import { dueNotifications } from './postgres-notify.ts';

export const postgresCapabilities: DialectCapabilities = {
  name: 'postgres',
  autoIdType: 'serial',
  skipLocked: true,
  maxParameters: 60_000,
  bytewiseCollation: '"C"',
  // Two imports inserting overlapping names in different orders would deadlock on the unique index;
  // two processes starting at once would each create a first admin key.
  serialize: async (trx, topic) => {
    await sql`select pg_advisory_xact_lock(${LOCKS[topic]})`.execute(trx);
  },
  jsonArrayContains: (column, tag) => sql<boolean>`(${column})::jsonb ? ${tag}`,
  isUniqueViolation: (error) => errorCode(error) === '23505',
  // Connection failures, admin shutdown, too many connections, serialisation and lock timeouts.
  isUnavailable: (error) =>
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', '40001', '40P01', '55P03'].includes(errorCode(error)) ||
    (error instanceof Error && /timeout exceeded when trying to connect|Connection terminated/i.test(error.message)),
  isInvalidValue: (error) => errorCode(error).startsWith('22'),
  unloggedTable: sql`unlogged`,
  currentSchema: async (db) => (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema,
  ping: async (db) => {
    await sql`select 1`.execute(db);
  },
  dueNotifications,
};

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}

/** Advisory lock keys: any constants ("perch" in ASCII, then the next one). */
const LOCKS = { imports: 0x7065726368, admin_keys: 0x7065726369 } as const;

// Times are epoch milliseconds in bigint columns; they fit a JS number exactly, so read them as one.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresHandles {
  db: Kysely<Database>;
}

export function openPostgres(connectionString: string, poolSize: number): PostgresHandles {
  const pool = new pg.Pool({ connectionString, max: poolSize, types, connectionTimeoutMillis: 5_000, statement_timeout: 30_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) };
}
