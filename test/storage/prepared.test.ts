// Queries compiled once and run with new values (storage/prepared.ts), on either dialect.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { preparedQuery, runByShape } from '../../src/storage/prepared.ts';
import { openStore } from '../../src/storage/store.ts';
import { dialectName, freshStores, freshStoreUrl } from '../helpers/store-url.ts';

describe(`prepared queries on ${dialectName}`, () => {
  it('answers each call with its own arguments, from one compiled query', async (t) => {
    const db = (await freshStores(t))[0]!.db;
    let builds = 0;
    const keyOf = preparedQuery((d: typeof db, id: string) => {
      builds += 1;
      return d.selectFrom('api_keys').select(['id', 'username']).where('id', '=', id);
    });
    for (const id of ['key_a', 'key_b'])
      await db
        .insertInto('api_keys')
        .values({
          id,
          key_hash: `hash-${id}`,
          start: 'perch_x',
          role: 'app',
          username: `owner of ${id}`,
          created_at: 1,
        })
        .execute();
    assert.deepEqual(await keyOf(db, 'key_b'), [{ id: 'key_b', username: 'owner of key_b' }]);
    assert.deepEqual(await keyOf(db, 'key_a'), [{ id: 'key_a', username: 'owner of key_a' }]);
    assert.deepEqual(await keyOf(db, 'key_none'), []);
    assert.equal(builds, 1);
  });

  it('refuses a query that does not use an argument as one parameter', async (t) => {
    const db = (await freshStores(t))[0]!.db;
    const inlined = preparedQuery((d: typeof db, id: string) =>
      d.selectFrom('api_keys').select('id').where(sql.lit(id), '=', 'x'),
    );
    await assert.rejects(inlined(db, 'key_a'), /exactly one parameter/);
  });

  it('is kept prepared by the PostgreSQL connection that ran it', { skip: dialectName !== 'postgres' }, async (t) => {
    const location = await freshStoreUrl();
    const store = await openStore(location.url, { poolSize: 1 });
    t.after(async () => {
      await store.close();
      await location.drop();
    });
    const keyOf = preparedQuery((d: typeof store.db, id: string) =>
      d.selectFrom('api_keys').select('username').where('id', '=', id),
    );
    for (const id of ['key_a', 'key_b', 'key_c']) assert.deepEqual(await keyOf(store.db, id), []);
    const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(store.db);
    assert.equal(rows.filter((row) => row.statement.includes('"api_keys"')).length, 1, JSON.stringify(rows));
  });

  it('runs a query of a known shape with new arguments, built once; a shape whose values are inlined is built every time', async (t) => {
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
    let inlinedBuilds = 0;
    const roleOf = (id: string) =>
      runByShape<{ role: string }>(db, 'role-inlined', [id], (a) => {
        if (a[0] === id) inlinedBuilds += 1; // built with the real argument, not only learnt
        return db
          .selectFrom('api_keys')
          .select('role')
          .where('id', '=', sql.lit(a[0] as string));
      });
    assert.deepEqual((await roleOf('key_b')).rows, [{ role: 'admin' }]);
    assert.deepEqual((await roleOf('key_c')).rows, [{ role: 'app' }]);
    assert.equal(inlinedBuilds, 2);
  });
});
