// The small ones: a stop that misses its deadline exits 1; a body with thousands of bad fields gets
// a short answer; the first admin key reaches a file, not a log, when there is no terminal; the
// key-hash secret file is refused when short and never left half-written.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deliverFirstAdminKey } from '../../src/services/bootstrap-admin.ts';
import { resolveKeyHashSecret } from '../../src/storage/key-secret.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { SECRET } from '../helpers/cli.ts';
import { startServer } from '../helpers/server-process.ts';
import { freshStoreUrl } from '../helpers/store-url.ts';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'perch-small-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('small ones', () => {
  it('exits 1 when a stop cannot finish within SHUTDOWN_TIMEOUT', { timeout: 60_000 }, async (t) => {
    const location = await freshStoreUrl();
    const server = await startServer({
      DATABASE_URL: location.url,
      ADMIN_API_KEY: ADMIN_KEY,
      KEY_HASH_SECRET: SECRET,
      SHUTDOWN_TIMEOUT: '1s',
      // A request's arrival is logged at debug (the access line comes when it is answered).
      LOG_LEVEL: 'debug',
    });
    t.after(() => location.drop());
    // An upload that never finishes keeps a request open through the drain.
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    t.after(() => socket.destroy());
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /api/admin/insert HTTP/1.1\r\nhost: x\r\nx-api-key: ${ADMIN_KEY}\r\ncontent-type: text/csv\r\ncontent-length: 100000\r\n\r\nusername\nslow\n`,
    );
    await server.waitForLog((line) => line.msg === 'incoming request');
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    assert.equal(exit.code, 1);
    assert.ok(server.lines.some((line) => line.msg === 'shutdown deadline reached; exiting with work still open'));
  });

  it('answers a body with thousands of unknown fields with its first problems only', async (t) => {
    const test = await build(t);
    const payload = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`field${i}${'x'.repeat(100)}`, i]));
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: { 'x-api-key': ADMIN_KEY },
      payload: { role: 'app', username: 'bob', ...payload },
    });
    assert.equal(response.statusCode, 400);
    const problem = response.json();
    assert.equal(problem.code, 'validation_failed');
    assert.ok(problem.errors.length <= 10, `${problem.errors.length} problems listed`);
    assert.match(problem.detail, /and \d+ more/);
    assert.ok(response.body.length < 10_000, `${response.body.length} bytes`);
  });

  it('writes the first admin key to an owner-only file, never a log, when there is no terminal', (t) => {
    const dir = tempDir(t);
    const logged: Record<string, unknown>[] = [];
    const log = { warn: (fields: Record<string, unknown>) => void logged.push(fields) };
    deliverFirstAdminKey('perch_first', { terminal: null, dir, log });
    const file = join(dir, 'first-admin-key');
    assert.equal(readFileSync(file, 'utf8'), 'perch_first\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(logged, [{ file }]);
    // A second first start (a wiped store) never overwrites the old file.
    deliverFirstAdminKey('perch_second', { terminal: null, dir, log });
    assert.equal(readFileSync(file, 'utf8'), 'perch_first\n');
    assert.equal(readFileSync(String(logged[1]?.file), 'utf8'), 'perch_second\n');
    let shown = '';
    deliverFirstAdminKey('perch_third', { terminal: { write: (text: string) => (shown += text) }, dir, log });
    assert.match(shown, /perch_third/);
    assert.equal(logged.length, 2, 'a terminal gets the key; the log gets nothing');
  });

  it('generates the key-hash secret whole and refuses a short one', (t) => {
    const dir = tempDir(t);
    const secret = resolveKeyHashSecret(null, dir);
    assert.ok(secret.length >= 32);
    assert.equal(resolveKeyHashSecret(null, dir), secret, 'the same secret on the next start');
    assert.deepEqual(readdirSync(dir), ['key-hash-secret'], 'no temporary file left behind');
    assert.equal(statSync(join(dir, 'key-hash-secret')).mode & 0o777, 0o600);
    writeFileSync(join(dir, 'key-hash-secret'), 'short\n');
    assert.throws(() => resolveKeyHashSecret(null, dir), /shorter than 32 characters/);
    assert.ok(existsSync(join(dir, 'key-hash-secret')), 'a bad secret is never replaced');
  });
});
