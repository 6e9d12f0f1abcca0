// A second SQLite writer: `perch import FILE` writing straight into the store of a running server
// holds SQLite's write lock for the whole import. The server's own writes (per-key request counts,
// key use) must then fail fast instead of sleeping on the event loop, so liveness never stalls and
// reads go on. And a revocation refuses the key at once, before its write (queued behind an
// import on the one writer) commits.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { perch, SECRET } from '../helpers/cli.ts';
import { startServer } from '../helpers/server-process.ts';
import { dialectName, freshStoreUrl } from '../helpers/store-url.ts';

const skip = dialectName !== 'sqlite' && 'a second SQLite writer is a SQLite matter';
/**
 * A server write sleeping on SQLite's lock held the event loop for its whole 5 s busy wait; a
 * probe slowed only by a loaded 2-core machine takes well under this (seconds at worst).
 */
const STALL_LIMIT_MS = 4_000;

describe('a second SQLite writer', { skip, timeout: 180_000 }, () => {
  it('never stalls the running server while `perch import FILE` writes to its store', async (t) => {
    const location = await freshStoreUrl();
    // The reads go on as long as the import runs (longer on a loaded machine): the per-key limit
    // is not what this test is about, so it is out of their way.
    const server = await startServer({
      DATABASE_URL: location.url,
      ADMIN_API_KEY: ADMIN_KEY,
      KEY_HASH_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '1000000',
    });
    t.after(async () => {
      server.child.kill('SIGKILL');
      await server.exited;
      await location.drop();
    });
    const file = join(location.dir!, 'big.csv');
    const rows = 400_000;
    writeFileSync(file, `username\n${Array.from({ length: rows }, (_, i) => `side${i}`).join('\n')}\n`);

    const cli = perch(['import', file], { DATABASE_URL: location.url });
    let done = false;
    void cli.finally(() => (done = true));
    const probes: number[] = [];
    const reads: number[] = [];
    // Authenticated reads write the per-key request count: the writes that would have waited.
    const reader = (async () => {
      while (!done) {
        const response = await fetch(`${server.url}/api/?username=side1`, { headers: { 'x-api-key': ADMIN_KEY } });
        await response.arrayBuffer();
        reads.push(response.status);
        await delay(20);
      }
    })();
    while (!done) {
      const started = performance.now();
      const live = await fetch(`${server.url}/api/health/live`);
      assert.equal(live.status, 200);
      probes.push(performance.now() - started);
      await delay(50);
    }
    await reader;
    const result = await cli;
    assert.equal(result.code, 0, result.stderr);
    assert.ok(probes.length >= 5, `the import ran long enough to probe (${probes.length} probes)`);
    const worst = Math.max(...probes);
    assert.ok(worst < STALL_LIMIT_MS, `liveness stalled ${Math.round(worst)} ms`);
    for (const status of reads) assert.ok([200, 404].includes(status), `reads answered, saw ${status}`);
    const after = await fetch(`${server.url}/api/?username=side1`, { headers: { 'x-api-key': ADMIN_KEY } });
    assert.equal(after.status, 200, 'the imported rows are visible to the server');
  });
});

describe('perch import beside a server', { skip, timeout: 120_000 }, () => {
  it('sends the file through the running server when it has an admin key, and the notice goes with the server', async (t) => {
    const location = await freshStoreUrl();
    const server = await startServer({ DATABASE_URL: location.url, ADMIN_API_KEY: ADMIN_KEY, KEY_HASH_SECRET: SECRET });
    t.after(async () => {
      server.child.kill('SIGKILL');
      await server.exited;
      await location.drop();
    });
    const notice = join(location.dir!, 'server.json');
    // Written just after the server starts listening.
    for (let i = 0; i < 200 && !existsSync(notice); i++) await delay(25);
    assert.equal(JSON.parse(readFileSync(notice, 'utf8')).url, server.url);
    const file = join(location.dir!, 'few.csv');
    writeFileSync(file, 'username\nthrough1\nthrough2\n');
    const result = await perch(['import', file, '--json'], { DATABASE_URL: location.url, PERCH_API_KEY: ADMIN_KEY });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /a server is running on this store .*sending the file to it/);
    assert.equal((JSON.parse(result.stdout) as { inserted: number }).inserted, 2);
    const imports = await fetch(`${server.url}/api/admin/imports`, { headers: { 'x-api-key': ADMIN_KEY } });
    assert.match(await imports.text(), /"source":"(text\/csv|csv|upload)[^"]*"/);
    server.child.kill('SIGTERM');
    assert.equal((await server.exited).code, 0);
    assert.equal(existsSync(notice), false, 'a stopped server withdraws its notice');
  });
});

describe('revocation', () => {
  it('refuses a revoked key before the revocation has been written', { timeout: 120_000 }, async (t) => {
    const test = await build(t);
    const { apiKey, id } = await test.createKey('app');
    const csv = `username\n${Array.from({ length: 200_000 }, (_, i) => `rv${i}`).join('\n')}\n`;
    const importing = test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      payload: csv,
    });
    // Once rows are being written, the revocation queues behind the import on SQLite's one writer.
    while (!test.logs.some((line) => line.includes('"import progress"'))) await delay(5);
    let revoked = false;
    const revoking = test.app
      .inject({ method: 'DELETE', url: `/api/admin/api-keys/${id}`, headers: { 'x-api-key': ADMIN_KEY } })
      .then((r) => ((revoked = true), r));
    await delay(0);
    // The authenticator itself, so the request's other store work (the per-key count, which may
    // itself wait for the writer) does not decide what is measured.
    const check = await test.deps.authenticator.check(apiKey);
    const refusal = check.ok ? null : check.reason;
    const writtenFirst = revoked;
    assert.equal(refusal, 'revoked');
    const me = await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': apiKey } });
    assert.equal(me.statusCode, 401, me.body);
    assert.equal(me.json().code, 'api_key_revoked');
    if (dialectName === 'sqlite')
      assert.equal(writtenFirst, false, 'refused while the revocation waited for the writer');
    assert.equal((await revoking).statusCode, 200);
    assert.equal((await importing).statusCode, 200);
  });
});
