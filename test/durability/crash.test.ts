// Durability with real processes: a server killed with SIGKILL in the middle of a large import
// leaves all of it or none of it, and an intact store; SIGTERM stops it with exit code 0 in time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from '../../src/storage/store.ts';
import { ADMIN_KEY } from '../helpers/app.ts';
import { startServer } from '../helpers/server-process.ts';
import { freshStoreUrl } from '../helpers/store-url.ts';

const ROWS = 300_000;
const env = (url: string) => ({
  DATABASE_URL: url,
  ADMIN_API_KEY: ADMIN_KEY,
  KEY_HASH_SECRET: 'durability-secret-0123456789abcdefghij',
});

describe('durability', () => {
  it('keeps all or nothing of an import killed with SIGKILL, and restarts on an intact store', async (t) => {
    const location = await freshStoreUrl();
    t.after(() => location.drop());
    const server = await startServer(env(location.url));
    const csv = `username\n${Array.from({ length: ROWS }, (_, i) => `crash${i}`).join('\n')}\n`;
    const upload = fetch(`${server.url}/api/admin/insert`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      body: csv,
    }).catch(() => null);
    // The first progress line means rows are being written inside the open transaction.
    await server.waitForLog((line) => line.msg === 'import progress');
    server.child.kill('SIGKILL');
    const exit = await server.exited;
    assert.equal(exit.signal, 'SIGKILL');
    assert.equal(await upload, null, 'the client saw the connection die');

    const store = await openStore(location.url);
    try {
      assert.equal(await store.integrityCheck(), 'ok');
      const { n } = await store.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.ok(Number(n) === 0 || Number(n) === ROWS, `all or nothing, found ${n}`);
      const imports = await store.db.selectFrom('imports').selectAll().execute();
      assert.equal(imports.length, Number(n) === 0 ? 0 : 1, 'the import record goes with its rows');
    } finally {
      await store.close();
    }

    const again = await startServer(env(location.url));
    t.after(() => again.child.kill('SIGKILL'));
    const health = await fetch(`${again.url}/api/health`);
    assert.equal(health.status, 200);
    const retry = await fetch(`${again.url}/api/admin/insert`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      body: csv,
    });
    assert.equal(retry.status, 200);
    const report = (await retry.json()) as { inserted: number; alreadyTracked: number };
    assert.equal(report.inserted + report.alreadyTracked, ROWS);
  });

  it('stops on SIGTERM with exit code 0 within 10 s, even with a client connected', async (t) => {
    const location = await freshStoreUrl();
    t.after(() => location.drop());
    const server = await startServer(env(location.url));
    const health = await fetch(`${server.url}/api/health`, { headers: { connection: 'keep-alive' } });
    assert.equal(health.status, 200);
    const started = Date.now();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    assert.equal(exit.code, 0);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.ok(server.lines.some((line) => line.msg === 'stopped'));
  });
});
