// API keys over HTTP: creation (shown once, stored hashed), listing without secrets, expiry,
// revocation on this process and on another one within the cache bound, and Idempotency-Key.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { composeApp } from '../../src/compose.ts';
import { createLogger } from '../../src/logger.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY };

describe('API keys', () => {
  it('creates a key exactly as the brief shows, usable at once with its role', async (t) => {
    const test = await build(t);
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: JSON.stringify({ role: 'app', username: 'bob' }),
    });
    assert.equal(response.statusCode, 201);
    const body = response.json();
    assert.equal(body.success, true);
    assert.equal(body.role, 'app');
    assert.equal(body.username, 'bob');
    assert.match(body.apiKey, /^perch_[0-9A-Za-z]{49}$/);
    assert.equal(body.start, body.apiKey.slice(0, 10));
    assert.match(body.id, /^key_/);
    const me = await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': body.apiKey } });
    assert.equal(me.json().role, 'app');
  });

  it('refuses unknown fields, unknown roles, missing fields and past expiry, creating nothing', async (t) => {
    const test = await build(t);
    const cases: [unknown, number][] = [
      [{ role: 'app' }, 400],
      [{ username: 'bob' }, 400],
      [{ role: 'root', username: 'bob' }, 400],
      [{ role: 'app', username: 'bob', admin: true }, 400],
      [{ role: 'app', username: '' }, 400],
      [{ role: 'app', username: 'bob', expiresAt: 'tomorrow' }, 400],
      [{ role: 'app', username: 'bob', expiresAt: '2000-01-01T00:00:00Z' }, 422],
      [[], 400],
    ];
    for (const [payload, status] of cases) {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/admin/api-keys',
        headers: admin,
        payload: payload as object,
      });
      assert.equal(response.statusCode, status, JSON.stringify(payload));
    }
    const list = await test.app.inject({
      method: 'GET',
      url: '/api/admin/api-keys?includeRevoked=true',
      headers: admin,
    });
    assert.deepEqual(list.json().data, []);
  });

  it('lists keys without their secret and revokes them at once', async (t) => {
    const test = await build(t);
    const key = await test.createKey('app', { name: 'dashboard' });
    const list = await test.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin });
    assert.equal(list.json().data.length, 1);
    assert.equal(list.json().data[0].name, 'dashboard');
    assert.ok(!JSON.stringify(list.json()).includes(key.apiKey.slice(10)), 'no secret in the list');
    assert.equal(list.json().data[0].lastUsedAt, null);
    await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': key.apiKey } });
    await new Promise((resolve) => setTimeout(resolve, 20)); // last-used is written in the background
    const used = await test.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin });
    assert.equal(used.json().data[0].lastUsedAt, new Date(test.clock.now()).toISOString());

    const revoke = await test.app.inject({ method: 'DELETE', url: `/api/admin/api-keys/${key.id}`, headers: admin });
    assert.equal(revoke.statusCode, 200);
    assert.equal(revoke.json().success, true);
    const refused = await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': key.apiKey } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().code, 'api_key_revoked');
    assert.equal(
      (await test.app.inject({ method: 'DELETE', url: `/api/admin/api-keys/${key.id}`, headers: admin })).statusCode,
      200,
      'revoking twice is harmless',
    );
    assert.equal(
      (await test.app.inject({ method: 'DELETE', url: '/api/admin/api-keys/key_nope', headers: admin })).statusCode,
      404,
    );
    assert.deepEqual(
      (await test.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin })).json().data,
      [],
    );
    const actions = (await test.app.inject({ method: 'GET', url: '/api/admin/audit', headers: admin }))
      .json()
      .data.map((e: { action: string }) => e.action);
    assert.deepEqual(actions, ['api_key.revoke', 'api_key.create']);
  });

  it('keeps the last admin key when no ADMIN_API_KEY could replace it', async (t) => {
    const test = await build(t);
    const only = await test.createKey('admin');
    const withEnv = await test.app.inject({
      method: 'DELETE',
      url: `/api/admin/api-keys/${only.id}`,
      headers: { 'x-api-key': only.apiKey },
    });
    assert.equal(withEnv.statusCode, 200, 'allowed while ADMIN_API_KEY is set');
    const noEnv = await build(t, { adminApiKey: null });
    assert.ok(noEnv.firstAdminKey, 'a first-run admin key was made');
    const headers = { 'x-api-key': noEnv.firstAdminKey };
    const me = (await noEnv.app.inject({ method: 'GET', url: '/api/me', headers })).json();
    assert.equal(me.role, 'admin');
    const refused = await noEnv.app.inject({ method: 'DELETE', url: `/api/admin/api-keys/${me.keyId}`, headers });
    assert.equal(refused.statusCode, 409);
    assert.equal(refused.json().code, 'last_admin_key');
    assert.equal((await noEnv.app.inject({ method: 'GET', url: '/api/me', headers })).statusCode, 200);
  });

  it('sees a revocation made by another process within KEY_CACHE_TTL', async (t) => {
    const test = await build(t, { keyCacheTtlMs: 1_000 });
    const key = await test.createKey('app');
    // A second app on the same store (SQLite file or PostgreSQL schema) plays the other process.
    const other = await composeApp(test.config, {
      logger: createLogger('silent', { pretty: false }),
      clock: test.clock,
    });
    t.after(() => other.app.close());
    const ok = await other.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': key.apiKey } });
    assert.equal(ok.statusCode, 200);
    await test.app.inject({ method: 'DELETE', url: `/api/admin/api-keys/${key.id}`, headers: admin });
    const cached = await other.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': key.apiKey } });
    assert.equal(cached.statusCode, 200, 'still trusted inside the cache bound');
    test.clock.advance(1_000);
    const refused = await other.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': key.apiKey } });
    assert.equal(refused.statusCode, 401);
  });

  it('returns the same key for a retried Idempotency-Key instead of a second one', async (t) => {
    const test = await build(t);
    const headers = { ...admin, 'idempotency-key': 'create-bob-1' };
    const first = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers,
      payload: { role: 'app', username: 'bob' },
    });
    const retry = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers,
      payload: { role: 'app', username: 'bob' },
    });
    assert.equal(retry.statusCode, 201);
    assert.deepEqual(retry.json(), first.json());
    const mismatch = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers,
      payload: { role: 'admin', username: 'bob' },
    });
    assert.equal(mismatch.statusCode, 422);
    const list = await test.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin });
    assert.equal(list.json().data.length, 1);
  });

  it('never stores or logs a key in plaintext', async (t) => {
    const test = await build(t, {}, { LOG_LEVEL: 'debug' });
    const replayable = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: { ...admin, 'idempotency-key': 'k1' },
      payload: { role: 'admin', username: 'idem' },
    });
    const keys = [
      await test.createKey('app'),
      await test.createKey('admin'),
      replayable.json<{ apiKey: string; id: string }>(),
    ];
    const replayed = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: { ...admin, 'idempotency-key': 'k1' },
      payload: { role: 'admin', username: 'idem' },
    });
    assert.equal(replayed.json().apiKey, keys[2]?.apiKey, 'the sealed record still replays');
    for (const key of keys) {
      await test.app.inject({
        method: 'GET',
        url: `/api/me?api_key=${key.apiKey}`,
        headers: { 'x-api-key': key.apiKey },
      });
      await test.app.inject({ method: 'DELETE', url: `/api/admin/api-keys/${key.id}`, headers: admin });
      await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': key.apiKey } });
    }
    const logs = test.logs.join('');
    assert.ok(logs.includes('request completed'), 'requests were logged');
    const rows = JSON.stringify([
      await test.deps.store.db.selectFrom('api_keys').selectAll().execute(),
      await test.deps.store.db.selectFrom('idempotency_keys').selectAll().execute(),
    ]);
    for (const { apiKey } of keys) {
      const secretPart = apiKey.slice(10);
      assert.ok(!logs.includes(secretPart), 'not in the logs');
      assert.ok(!rows.includes(secretPart), 'not in the rows');
      if (test.storeDir !== null) {
        for (const file of readdirSync(test.storeDir)) {
          assert.ok(!readFileSync(join(test.storeDir, file)).includes(secretPart), `not in ${file}`);
        }
      }
    }
  });
});

describe('API key input edges', () => {
  it('refuses blank owners and expiry dates it cannot read, creating nothing', async (t) => {
    const test = await build(t);
    for (const payload of [
      { role: 'app', username: '   ' },
      { role: 'app', username: 'bob', expiresAt: '2030-06-30T23:59:60Z' },
      { role: 'app', username: 'a\u0085b' },
    ]) {
      const response = await test.app.inject({ method: 'POST', url: '/api/admin/api-keys', headers: admin, payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
    }
    const list = await test.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin });
    assert.deepEqual(list.json().data, []);
  });
});
