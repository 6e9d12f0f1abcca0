// Statements compiled once and run with new values (storage/prepared.ts), on either dialect; and
// PostgreSQL's named statements, on (kept per connection) and off (PREPARED_STATEMENTS=off).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { preparedQuery, runByShape } from '../../src/storage/prepared.ts';
import { openStore, type Store } from '../../src/storage/store.ts';
import { dialectName, freshStores, freshStoreUrl, testStoreOptions } from '../helpers/store-url.ts';

type Db = Store['db'];

async function addKeys(db: Db, ids: readonly string[]): Promise<void> {
  for (const id of ids)
    await db
      .insertInto('api_keys')
      .values({ id, key_hash: `hash-${id}`, start: 'perch_x', role: 'app', username: `owner of ${id}`, created_at: 1 })
      .execute();
}

/** Runs `work` as a production process would (NODE_ENV unset), collecting the warnings it emits. */
async function outsideTests(work: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const listen = (warning: Error & { code?: string }) => {
    if (warning.code === 'PERCH_STATEMENT_SHAPE') warnings.push(warning.message);
  };
  process.on('warning', listen);
  const before = process.env.NODE_ENV;
  delete process.env.NODE_ENV;
  try {
    await work();
    await new Promise(setImmediate); // warnings are emitted on the next tick
  } finally {
    process.env.NODE_ENV = before;
    process.off('warning', listen);
  }
  return warnings;
}

/** A PostgreSQL store with one connection, so that every statement meets the same one. */
async function oneConnectionStore(t: { after(fn: () => Promise<void>): void }, preparedStatements: boolean) {
  const location = await freshStoreUrl();
  const store = await openStore(location.url, { poolSize: 1, preparedStatements });
  t.after(async () => {
    await store.close();
    await location.drop();
  });
  return store;
}

const namedOnConnection = async (db: Db): Promise<string[]> =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows
    .map((row) => row.statement)
    .filter((statement) => statement.includes('"api_keys"'));

describe(`statements compiled once on ${dialectName}`, () => {
  it('answers each call with its own arguments, from one compiled query', async (t) => {
    const db = (await freshStores(t))[0]!.db;
    let builds = 0;
    const keyOf = preparedQuery((d: Db, id: string) => {
      builds += 1;
      return d.selectFrom('api_keys').select(['id', 'username']).where('id', '=', id);
    });
    await addKeys(db, ['key_a', 'key_b']);
    assert.deepEqual(await keyOf(db, 'key_b'), [{ id: 'key_b', username: 'owner of key_b' }]);
    assert.deepEqual(await keyOf(db, 'key_a'), [{ id: 'key_a', username: 'owner of key_a' }]);
    assert.deepEqual(await keyOf(db, 'key_none'), []);
    // A transaction shares its database's compiled statements.
    await db.transaction().execute(async (trx) => assert.deepEqual((await keyOf(trx, 'key_a')).length, 1));
    assert.equal(builds, 1);
  });

  it('runs a statement of a known shape with new arguments, built once per shape', async (t) => {
    const db = (await freshStores(t))[0]!.db;
    let builds = 0;
    const insert = (id: string, role: string) =>
      runByShape(db, 'insert-key', [id, `hash-${id}`, role, `owner of ${id}`], (a) => {
        builds += 1;
        const [keyId, keyHash, keyRole, username] = a as string[];
        return db.insertInto('api_keys').values({
          id: keyId as string,
          key_hash: keyHash as string,
          start: 'perch_x',
          role: keyRole as string,
          username: username as string,
          created_at: 1,
        });
      });
    await insert('key_a', 'app');
    await insert('key_b', 'admin');
    await insert('key_c', 'app');
    assert.equal(builds, 1);
    const rows = await db.selectFrom('api_keys').select(['id', 'role', 'username']).orderBy('id').execute();
    assert.deepEqual(rows, [
      { id: 'key_a', role: 'app', username: 'owner of key_a' },
      { id: 'key_b', role: 'admin', username: 'owner of key_b' },
      { id: 'key_c', role: 'app', username: 'owner of key_c' },
    ]);
  });

  it('under test, refuses a statement whose arguments are not all bound values, and runs nothing', async (t) => {
    const db = (await freshStores(t))[0]!.db;
    await addKeys(db, ['key_a']);
    const inlined = preparedQuery((d: Db, id: string) =>
      d.selectFrom('api_keys').select('id').where(sql.lit(id), '=', 'x'),
    );
    await assert.rejects(inlined(db, 'key_a'), /cannot be compiled once: an argument went into the SQL text/);
    const role = 'admin';
    const closedOver = runByShape(db, 'set-role:closed-over', ['key_a'], () =>
      db.updateTable('api_keys').set({ role }).where('id', '=', 'key_a'),
    );
    await assert.rejects(closedOver, /"set-role" cannot be compiled once: argument 0 is not one of its parameters/);
    const computed = runByShape(db, 'set-name', ['key_a'], (a) =>
      db
        .updateTable('api_keys')
        .set({ username: `${a[0]}!` })
        .where('id', '=', 'key_a'),
    );
    await assert.rejects(computed, /a parameter was computed from an argument/);
    const expanded = runByShape(db, 'keys-in', [['key_a']], (a) =>
      db.deleteFrom('api_keys').where(
        'id',
        'in',
        (a[0] as string[]).map((id) => id),
      ),
    );
    await assert.rejects(expanded, /building it with stand-ins failed/);
    assert.deepEqual(await db.selectFrom('api_keys').select(['role', 'username']).execute(), [
      { role: 'app', username: 'owner of key_a' },
    ]);
  });

  it('outside tests, runs such a statement compiled every time, with one warning per shape name', async (t) => {
    const db = (await freshStores(t))[0]!.db;
    await addKeys(db, ['key_a', 'key_b']);
    await db.updateTable('api_keys').set({ role: 'admin' }).where('id', '=', 'key_b').execute();
    let builtWithRealValues = 0;
    const roleOf = (id: string) =>
      runByShape<{ role: string }>(db, `role-inlined:${id.length}`, [id], (a) => {
        if (a[0] === id) builtWithRealValues += 1;
        return db
          .selectFrom('api_keys')
          .select('role')
          .where('id', '=', sql.lit(a[0] as string));
      });
    const answers: string[] = [];
    const warnings = await outsideTests(async () => {
      for (const id of ['key_b', 'key_a', 'key_b']) answers.push(...(await roleOf(id)).rows.map((row) => row.role));
    });
    assert.deepEqual(answers, ['admin', 'app', 'admin']);
    assert.equal(builtWithRealValues, 3);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /"role-inlined" cannot be compiled once: an argument went into the SQL text/);
  });
});

describe('named statements on PostgreSQL', { skip: dialectName !== 'postgres' }, () => {
  it('keeps a compiled query prepared on the connection that ran it, as PREPARED_STATEMENTS says', async (t) => {
    const store = await oneConnectionStore(t, testStoreOptions.preparedStatements !== false);
    const keyOf = preparedQuery((d: Db, id: string) =>
      d.selectFrom('api_keys').select('username').where('id', '=', id),
    );
    for (const id of ['key_a', 'key_b', 'key_c']) assert.deepEqual(await keyOf(store.db, id), []);
    const named = await namedOnConnection(store.db);
    assert.equal(named.length, testStoreOptions.preparedStatements === false ? 0 : 1, JSON.stringify(named));
  });

  // A pooler in transaction mode hands the next transaction another server connection, one that
  // never saw the statement prepared: DEALLOCATE ALL makes the one connection here such a one.
  it('breaks on a server connection that lacks the statement, unless PREPARED_STATEMENTS=off', async (t) => {
    const keyOf = preparedQuery((d: Db, id: string) => d.selectFrom('api_keys').select('id').where('id', '=', id));
    const named = await oneConnectionStore(t, true);
    const unnamed = await oneConnectionStore(t, false);
    for (const store of [named, unnamed]) {
      await addKeys(store.db, ['key_a']);
      assert.deepEqual(await keyOf(store.db, 'key_a'), [{ id: 'key_a' }]);
      await sql`deallocate all`.execute(store.db);
    }
    await assert.rejects(keyOf(named.db, 'key_a'), /prepared statement .* does not exist/);
    assert.deepEqual(await keyOf(unnamed.db, 'key_a'), [{ id: 'key_a' }]);
    assert.deepEqual(await namedOnConnection(unnamed.db), []);
  });
});
