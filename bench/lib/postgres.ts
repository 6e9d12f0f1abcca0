// PostgreSQL for the scale-out benches: whether the server is there, a fresh schema per run (the
// way test/helpers/store-url.ts isolates tests), and a fast fill of checked accounts.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { openStore } from '../../src/storage/store.ts';
import { checkedVariants, DAY } from './accounts-fixture.ts';

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
 * Creates the schema through perch's own migrations, then inserts `count` checked X accounts
 * (`user0000001` …, the same rows as fillCheckedAccounts writes to SQLite): the 1,000 JSON
 * variants go over the wire once, and the server expands them with generate_series. Then
 * ANALYZE (fresh statistics for the planner) and a CHECKPOINT, so that writing the fill out does
 * not compete with the measured runs.
 */
export async function fillCheckedAccountsPostgres(url: string, count: number): Promise<void> {
  const store = await openStore(url, { poolSize: 1 });
  await sql`select 1`.execute(store.db);
  await store.close();
  const now = Date.now();
  const variants = checkedVariants(now);
  await withClient(url, async (client) => {
    await client.query(
      'create temporary table bench_variants (k integer primary key, profile text, metrics text, analysis text, followers bigint, change7d bigint)',
    );
    await client.query(
      `insert into bench_variants select * from unnest($1::integer[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])`,
      [
        variants.map((_, k) => k),
        variants.map((v) => v.profile),
        variants.map((v) => v.metrics),
        variants.map((v) => v.analysis),
        variants.map((v) => v.followers),
        variants.map((v) => v.change7d),
      ],
    );
    await client.query(
      `insert into accounts (platform, username, username_key, platform_user_id, status, tags, profile, metrics, analysis,
         followers, followers_change_7d, tracked_since, last_checked_at, next_check_at, created_at, updated_at)
       select 'x', n.name, n.name, (10000000 + i)::text, 'active', '["bench"]', v.profile, v.metrics, v.analysis,
         v.followers, v.change7d, $2::bigint, $3::bigint, $4::bigint, $2::bigint, $3::bigint
       from generate_series(1, $1::integer) as i
       cross join lateral (select 'user' || lpad(i::text, greatest(7, length(i::text)), '0') as name) as n
       join bench_variants v on v.k = i % 1000`,
      [count, now - 30 * DAY, now - 600_000, now + 3_000_000],
    );
    await client.query('analyze accounts');
    // Superuser only; without it the fill is merely written out a little later.
    await client.query('checkpoint').catch(() => {});
  });
}
