// `perch keys create|list|revoke` as a user runs them: the real CLI in a child process, on a real store,
// and the key it prints works on a server sharing that store until it is revoked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { composeApp } from '../../src/compose.ts';
import { perch, SECRET } from '../helpers/cli.ts';
import { freshStoreUrl, type TestStoreUrl } from '../helpers/store-url.ts';

const ADMIN_KEY = 'test-admin-key-0123456789abcdefghijklmnop';

describe('perch keys', () => {
  let store: TestStoreUrl;
  let app: FastifyInstance;
  let env: Record<string, string>;

  before(async () => {
    store = await freshStoreUrl();
    env = { DATABASE_URL: store.url };
    // The server sees a revocation on its next lookup (KEY_CACHE_TTL=0), as another process would after the TTL.
    const config = createConfig({
      DATABASE_URL: store.url,
      KEY_HASH_SECRET: SECRET,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'silent',
      KEY_CACHE_TTL: '0',
    });
    ({ app } = await composeApp(config, { logger: createLogger('silent', { pretty: false }) }));
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await store?.drop();
  });

  const me = (apiKey: string) => app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': apiKey } });

  it('creates a key, lists it without its secret, revokes it, and lists it as revoked with --all', async () => {
    const created = await perch(
      ['keys', 'create', '--role', 'app', '--username', 'bob', '--name', 'nightly job', '--json'],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout) as {
      apiKey: string;
      id: string;
      role: string;
      username: string;
      name: string;
      start: string;
    };
    assert.match(key.apiKey, /^perch_/);
    assert.match(key.id, /^key_/);
    assert.deepEqual(
      { role: key.role, username: key.username, name: key.name },
      { role: 'app', username: 'bob', name: 'nightly job' },
    );
    const before = await me(key.apiKey);
    assert.equal(before.statusCode, 200, before.body);
    assert.equal(before.json<{ keyId: string }>().keyId, key.id);

    const listed = await perch(['keys', 'list'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const row = listed.stdout.split('\n').find((line) => line.startsWith(key.id));
    assert.ok(row, listed.stdout);
    assert.match(row, /\bapp\s+bob\s+nightly job\s+/);
    assert.ok(row.includes(key.start));
    assert.ok(!listed.stdout.includes(key.apiKey), 'the list must never show a secret');

    const revoked = await perch(['keys', 'revoke', key.id], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`Revoked key ${key.id} \\(app, bob\\)`));
    assert.equal((await me(key.apiKey)).statusCode, 401);

    const all = await perch(['keys', 'list', '--all'], env);
    assert.equal(all.code, 0, all.stderr);
    const lines = all.stdout.split('\n');
    const header = lines[0] ?? '';
    const revokedRow = lines.find((line) => line.startsWith(key.id)) ?? '';
    assert.match(revokedRow.slice(header.indexOf('REVOKED')), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/, all.stdout);
    assert.ok(!all.stdout.includes(key.apiKey));
  });

  it('refuses bad usage with exit 2 and an unknown id with exit 1, each with a message', async () => {
    const [badRole, unknown] = await Promise.all([
      perch(['keys', 'create', '--role', 'root', '--username', 'bob'], env),
      perch(['keys', 'revoke', 'key_doesnotexist'], env),
    ]);
    assert.equal(badRole.code, 2);
    assert.match(badRole.stderr, /--role.*'root' is invalid.*app, admin/);
    assert.equal(badRole.stdout, '');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no API key has the id "key_doesnotexist"/);
    assert.doesNotMatch(badRole.stderr + unknown.stderr, /\n\s+at /, 'no stack trace');
  });
});
