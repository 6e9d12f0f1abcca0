// A full disk under SQLite: the store refuses to grow (SQLITE_FULL, here from a page limit on the
// server's own writer connection, as ENOSPC would). An import then answers 503 and writes nothing;
// what was committed before stays, the file stays intact, and once there is room the same import
// goes through.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { dialectName } from '../helpers/store-url.ts';

const skip = dialectName !== 'sqlite' && 'a size-limited database file is a SQLite matter';
const admin = { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' };

describe('a full disk', { skip }, () => {
  it('answers 503 to an import that does not fit, keeps what was committed, and takes it once there is room', async (t) => {
    const test = await build(t);
    const first = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: `username\n${Array.from({ length: 500 }, (_, i) => `kept${i}`).join('\n')}\n`,
    });
    assert.equal(first.statusCode, 200, first.body);
    const db = test.deps.store.db;
    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]?.page_count);
    // A few pages of room: far less than the next import needs.
    await sql.raw(`pragma max_page_count = ${pages + 8}`).execute(db);

    const big = `username\n${Array.from({ length: 50_000 }, (_, i) => `lost${i}`).join('\n')}\n`;
    const full = await test.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload: big });
    assert.equal(full.statusCode, 503, full.body);
    assert.equal(full.json().code, 'store_unavailable');
    assert.ok(full.headers['retry-after']);

    const count = async (prefix: string) =>
      Number(
        (
          await db
            .selectFrom('accounts')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('username_key', 'like', `${prefix}%`)
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal(await count('kept'), 500, 'nothing committed before is lost');
    assert.equal(await count('lost'), 0, 'the import is all or nothing');
    assert.equal(await test.deps.store.integrityCheck(), 'ok');
    const kept = await test.app.inject({
      method: 'GET',
      url: '/api/?username=kept1',
      headers: { 'x-api-key': ADMIN_KEY },
    });
    assert.equal(kept.statusCode, 200, 'reads go on while the disk is full');

    await sql.raw('pragma max_page_count = 1073741823').execute(db);
    const again = await test.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload: big });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(await count('lost'), 50_000);
  });
});
