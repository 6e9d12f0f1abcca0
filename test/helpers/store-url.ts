// Where the tests keep their data: a fresh SQLite file per test, or a fresh PostgreSQL schema
// per test when TEST_DATABASE_URL is set (CI runs the whole suite both ways).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { createConfig } from '../../src/config.ts';
import { openStore, type Store, type StoreOptions } from '../../src/storage/store.ts';

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? null;
export const dialectName = POSTGRES_URL ? 'postgres' : 'sqlite';

/**
 * The store settings of the environment the tests run in, for the configurations they build: CI
 * runs part of the PostgreSQL suite again with PREPARED_STATEMENTS=off (as behind PgBouncer).
 */
export const storeEnv: Record<string, string> =
  process.env.PREPARED_STATEMENTS === undefined ? {} : { PREPARED_STATEMENTS: process.env.PREPARED_STATEMENTS };
/** The same, for stores the tests open themselves. */
export const testStoreOptions: StoreOptions = { preparedStatements: createConfig(storeEnv).preparedStatements };

export interface TestStoreUrl {
  url: string;
  /** The folder of the SQLite file (null on PostgreSQL). */
  dir: string | null;
  drop(): Promise<void>;
}

/** A new empty store location. PostgreSQL isolation is by schema, through `search_path`. */
export async function freshStoreUrl(): Promise<TestStoreUrl> {
  if (POSTGRES_URL === null) {
    const dir = mkdtempSync(join(tmpdir(), 'perch-test-'));
    return {
      url: `file:${join(dir, 'perch.db')}`,
      dir,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  // Tests never crash the PostgreSQL server itself (outages are cut through a proxy), so a commit
  // need not wait for its WAL flush: the suite spends less of CI's time in fsync.
  url.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  return {
    url: url.toString(),
    dir: null,
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

/**
 * `count` stores on one fresh location, as that many processes would open it (the first migrates
 * it), closed and dropped when the test ends.
 */
export async function freshStores(t: TestContext, count = 1): Promise<Store[]> {
  const location = await freshStoreUrl();
  const stores = [await openStore(location.url, testStoreOptions)];
  for (let i = 1; i < count; i++) stores.push(await openStore(location.url, { ...testStoreOptions, migrate: false }));
  t.after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await location.drop();
  });
  return stores;
}

/** Opens the store at `url` (written by another process) for `read`, and closes it again. */
export async function readStore<T>(url: string, read: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(url, testStoreOptions);
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}
