// PostgreSQL for the scale-out benches: whether the server is there, a fresh schema per run (the
// way test/helpers/store-url.ts isolates tests), and what the planner makes of the accounts table.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { selectAccountByName } from '../../src/storage/accounts-repo.ts';
import { openStore } from '../../src/storage/store.ts';

/** The server and database the benches use; a fresh schema in it per run. */
export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchSchema {
  /** DATABASE_URL for perch: the server, with `search_path` set to the schema. */
  url: string;
  schema: string;
  drop(): Promise<void>;
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** A new empty schema, or why there is none (the server cannot be reached, or refuses to create one). */
export async function freshBenchSchema(prefix: string): Promise<BenchSchema | { unreachable: string }> {
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  try {
    await withClient(BENCH_POSTGRES_URL, (client) => client.query(`create schema ${schema}`));
  } catch (error) {
    return { unreachable: error instanceof Error ? error.message || error.name : String(error) };
  }
  const url = new URL(BENCH_POSTGRES_URL);
  // BENCH_POSTGRES_OPTIONS adds server settings for every connection of the run (e.g. `-c synchronous_commit=off`).
  url.searchParams.set(
    'options',
    [`-c search_path=${schema}`, process.env.BENCH_POSTGRES_OPTIONS ?? ''].join(' ').trim(),
  );
  return {
    url: url.toString(),
    schema,
    drop: () =>
      withClient(BENCH_POSTGRES_URL, (client) => client.query(`drop schema if exists ${schema} cascade`)).then(
        () => {},
      ),
  };
}

/**
 * Whether PostgreSQL has statistics for `accounts` (ANALYZE, by hand or by autovacuum), and the
 * first line of the plan of perch's own lookup of one account by name (which index it reads).
 */
export async function accountLookupPlan(url: string, name: string): Promise<{ analysed: boolean; plan: string }> {
  const store = await openStore(url, { migrate: false, poolSize: 1 });
  try {
    const { rows } = await sql<{ analysed: boolean }>`
      select (last_analyze is not null or last_autoanalyze is not null) as analysed
      from pg_stat_user_tables where relid = 'accounts'::regclass`.execute(store.reader);
    const plan = await selectAccountByName(store.reader, { platform: 'x', key: name }).explain();
    return { analysed: rows[0]?.analysed ?? false, plan: String(plan[0]?.['QUERY PLAN'] ?? '') };
  } finally {
    await store.close();
  }
}
