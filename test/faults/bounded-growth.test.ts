// Bounded growth and bounded work, on both stores: old rows are pruned in batches and recent ones
// kept; a filtered read finds a rare match on its first page, served from an index; an import
// behind another on PostgreSQL is refused at once instead of holding a connection while it waits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createConfig } from '../../src/config.ts';
import { PRUNE_BATCH, pruneOnce } from '../../src/services/retention.ts';
import { ADMIN_KEY, TestClock, build } from '../helpers/app.ts';
import { dialectName, freshStores } from '../helpers/store-url.ts';

const DAY = 86_400_000;

describe('retention', () => {
  it('deletes rows older than each table’s retention in batches and keeps the rest', async (t) => {
    const [store] = await freshStores(t);
    const clock = new TestClock();
    const now = clock.now();
    const old = PRUNE_BATCH * 2 + 17;
    const audit = Array.from({ length: old }, (_, i) => ({
      at: now - 400 * DAY - i,
      actor: null,
      action: 'test.old',
      target: null,
      detail: null,
    }));
    for (let i = 0; i < audit.length; i += 500)
      await store!.db
        .insertInto('audit_log')
        .values(audit.slice(i, i + 500))
        .execute();
    await store!.db
      .insertInto('audit_log')
      .values({ at: now - DAY, actor: null, action: 'test.recent', target: null, detail: null })
      .execute();
    const idem = (key: string, at: number) => ({
      owner: 'key_a',
      idempotency_key: key,
      route: 'r',
      request_hash: 'h',
      status_code: 201,
      response: 'sealed',
      created_at: at,
    });
    await store!.db
      .insertInto('idempotency_keys')
      .values([idem('old', now - 25 * 3_600_000), idem('new', now - 3_600_000)])
      .execute();

    const config = createConfig({ AUDIT_RETENTION: '365d', IMPORTS_RETENTION: 'off' });
    const report = await pruneOnce(store!, config.retention, clock, async () => {});
    assert.equal(report.deleted.audit, old);
    assert.equal(report.deleted.idempotency, 1);
    assert.equal(report.deleted.imports, undefined, 'off keeps a table for ever');
    const actions = await store!.db.selectFrom('audit_log').select('action').execute();
    assert.deepEqual(
      actions.map((a) => a.action),
      ['test.recent'],
    );
    const keys = await store!.db.selectFrom('idempotency_keys').select('idempotency_key').execute();
    assert.deepEqual(
      keys.map((k) => k.idempotency_key),
      ['new'],
    );
    assert.deepEqual((await pruneOnce(store!, config.retention, clock, async () => {})).deleted.audit, 0);
  });
});

describe('filtered reads', () => {
  it('finds rare matches at both ends of the order on one page, which says it is the last', async (t) => {
    const test = await build(t);
    const n = 6_000;
    const names = Array.from({ length: n }, (_, i) => `b${String(i).padStart(6, '0')}`);
    const csv = `username,tags\n${names.map((name, i) => `${name},${i === 0 || i === n - 1 ? 'rare' : 'common'}`).join('\n')}\n`;
    const imported = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      payload: csv,
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const page = await test.app.inject({
      method: 'GET',
      url: '/api/?tag=rare&sort=username&limit=10',
      headers: { 'x-api-key': ADMIN_KEY },
    });
    assert.equal(page.statusCode, 200, page.body);
    const body = page.json() as { data: { username: string }[]; nextCursor: string | null };
    assert.deepEqual(
      body.data.map((a) => a.username),
      [names[0], names[n - 1]],
    );
    assert.equal(body.nextCursor, null);
  });
});

describe('imports behind another import', () => {
  it('refuses the second at once on PostgreSQL; SQLite queues it on its one writer', async (t) => {
    const [a, b] = await freshStores(t, 2);
    await a!.db.transaction().execute(async (first) => {
      assert.equal(await a!.caps.trySerialize(first, 'imports'), true);
      const second = await b!.db.transaction().execute((trx) => b!.caps.trySerialize(trx, 'imports'));
      assert.equal(
        second,
        dialectName === 'sqlite',
        'the second import may not proceed while the first holds the lock',
      );
    });
    assert.equal(
      await b!.db.transaction().execute((trx) => b!.caps.trySerialize(trx, 'imports')),
      true,
      'free again once the first commits',
    );
  });
});
