// The security matrix, run on every registered route: no key, malformed, unknown, revoked,
// expired and wrong-role keys are refused; the right role gets through. Also: every route
// declares its access, and failed authentications are throttled.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { formatApiKey } from '../../src/domain/api-key-format.ts';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

let deleted = 0;
type Sample = (t: TestApp) => Promise<InjectOptions> | InjectOptions;

/** One valid request per secured route; a new route without a sample fails the test below. */
const SAMPLES: Record<string, Sample> = {
  'GET /api/me': () => ({ method: 'GET', url: '/api/me' }),
  'GET /api/': () => ({ method: 'GET', url: '/api/?username=jack' }),
  'GET /api/accounts/:platform/:username': () => ({ method: 'GET', url: '/api/accounts/x/jack' }),
  'GET /api/accounts/count': () => ({ method: 'GET', url: '/api/accounts/count?status=pending' }),
  'GET /api/accounts/:platform/:username/history': () => ({
    method: 'GET',
    url: '/api/accounts/x/jack/history?format=csv',
  }),
  'GET /api/accounts/:platform/:username/posts': () => ({ method: 'GET', url: '/api/accounts/x/jack/posts' }),
  'GET /api/accounts/:platform/:username/followers': () => ({
    method: 'GET',
    url: '/api/accounts/x/jack/followers?state=gained&format=csv',
  }),
  'POST /api/admin/insert': () => ({
    method: 'POST',
    url: '/api/admin/insert',
    payload: { file: 'username\nnewname\n' },
  }),
  'PATCH /api/admin/accounts/:platform/:username': () => ({
    method: 'PATCH',
    url: '/api/admin/accounts/x/jack',
    payload: { tags: ['a'] },
  }),
  'DELETE /api/admin/accounts/:platform/:username': async (t) => {
    const name = `gone${++deleted}`;
    await t.admin('POST', '/api/admin/insert', { file: name });
    return { method: 'DELETE', url: `/api/admin/accounts/x/${name}` };
  },
  'POST /api/admin/accounts/:platform/:username/refresh': () => ({
    method: 'POST',
    url: '/api/admin/accounts/x/jack/refresh',
  }),
  'GET /api/admin/imports': () => ({ method: 'GET', url: '/api/admin/imports' }),
  'GET /api/admin/audit': () => ({ method: 'GET', url: '/api/admin/audit' }),
  'GET /api/admin/usage': () => ({ method: 'GET', url: '/api/admin/usage' }),
  'POST /api/admin/api-keys': () => ({
    method: 'POST',
    url: '/api/admin/api-keys',
    payload: { role: 'app', username: 'carol' },
  }),
  'GET /api/admin/api-keys': () => ({ method: 'GET', url: '/api/admin/api-keys' }),
  'DELETE /api/admin/api-keys/:id': async (t) => ({
    method: 'DELETE',
    url: `/api/admin/api-keys/${(await t.createKey('app')).id}`,
  }),
  'GET /api/events': () => ({ method: 'GET', url: '/api/events' }),
  'GET /api/events/stream': () => ({ method: 'GET', url: '/api/events/stream?maxSeconds=1' }),
  'POST /api/admin/webhooks': () => ({
    method: 'POST',
    url: '/api/admin/webhooks',
    payload: { url: 'https://93.184.216.34/hook', events: ['*'] },
  }),
  'GET /api/admin/webhooks': () => ({ method: 'GET', url: '/api/admin/webhooks' }),
  'GET /api/admin/webhooks/:id': async (t) => ({ method: 'GET', url: `/api/admin/webhooks/${await webhook(t)}` }),
  'PATCH /api/admin/webhooks/:id': async (t) => ({
    method: 'PATCH',
    url: `/api/admin/webhooks/${await webhook(t)}`,
    payload: { description: 'x' },
  }),
  'DELETE /api/admin/webhooks/:id': async (t) => ({ method: 'DELETE', url: `/api/admin/webhooks/${await webhook(t)}` }),
  'POST /api/admin/webhooks/:id/test': async (t) => ({
    method: 'POST',
    url: `/api/admin/webhooks/${await webhook(t)}/test`,
  }),
  'POST /api/admin/webhooks/:id/rotate-secret': async (t) => ({
    method: 'POST',
    url: `/api/admin/webhooks/${await webhook(t)}/rotate-secret`,
  }),
  'GET /api/admin/webhooks/:id/deliveries': async (t) => ({
    method: 'GET',
    url: `/api/admin/webhooks/${await webhook(t)}/deliveries`,
  }),
  'POST /api/admin/alerts': () => ({
    method: 'POST',
    url: '/api/admin/alerts',
    payload: { name: 'big', metric: 'followers', condition: { above: 10 } },
  }),
  'GET /api/admin/alerts': () => ({ method: 'GET', url: '/api/admin/alerts' }),
  'GET /api/admin/alerts/:id': async (t) => ({ method: 'GET', url: `/api/admin/alerts/${await alertRule(t)}` }),
  'PATCH /api/admin/alerts/:id': async (t) => ({
    method: 'PATCH',
    url: `/api/admin/alerts/${await alertRule(t)}`,
    payload: { cooldown: '1h' },
  }),
  'DELETE /api/admin/alerts/:id': async (t) => ({ method: 'DELETE', url: `/api/admin/alerts/${await alertRule(t)}` }),
  'POST /api/admin/digests': () => ({ method: 'POST', url: '/api/admin/digests', payload: DIGEST }),
  'GET /api/admin/digests': () => ({ method: 'GET', url: '/api/admin/digests' }),
  'GET /api/admin/digests/:id': async (t) => ({ method: 'GET', url: `/api/admin/digests/${await digest(t)}` }),
  'PATCH /api/admin/digests/:id': async (t) => ({
    method: 'PATCH',
    url: `/api/admin/digests/${await digest(t)}`,
    payload: { name: 'Renamed' },
  }),
  'DELETE /api/admin/digests/:id': async (t) => ({ method: 'DELETE', url: `/api/admin/digests/${await digest(t)}` }),
  'GET /api/admin/digests/:id/preview': async (t) => ({
    method: 'GET',
    url: `/api/admin/digests/${await digest(t)}/preview`,
  }),
  'GET /api/admin/digests/:id/sends': async (t) => ({
    method: 'GET',
    url: `/api/admin/digests/${await digest(t)}/sends`,
  }),
  'GET /api/admin/mail': () => ({ method: 'GET', url: '/api/admin/mail' }),
};

const DIGEST = {
  name: 'Morning',
  schedule: 'daily',
  at: '08:00',
  timeZone: 'Europe/Paris',
  recipients: ['a@example.com'],
};

/** A new digest. */
async function digest(t: TestApp): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/admin/digests',
    headers: { 'x-api-key': ADMIN_KEY },
    payload: DIGEST,
  });
  return response.json<{ id: string }>().id;
}

async function alertRule(t: TestApp): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/admin/alerts',
    headers: { 'x-api-key': ADMIN_KEY },
    payload: { name: 'big', metric: 'followers', condition: { above: 10 } },
  });
  return response.json<{ id: string }>().id;
}

/** A new webhook (a public address literal: no DNS, and never called here). */
async function webhook(t: TestApp): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/admin/webhooks',
    headers: { 'x-api-key': ADMIN_KEY },
    payload: { url: 'https://93.184.216.34/hook', events: ['*'] },
  });
  return response.json<{ id: string }>().id;
}

async function seed(t: TestApp) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/admin/insert',
    headers: { 'x-api-key': ADMIN_KEY },
    payload: { file: 'jack\n' },
  });
  assert.equal(response.statusCode, 200, response.body);
}

describe('security matrix', () => {
  it('every route declares who may call it', async (t) => {
    const app = await build(t);
    assert.ok(app.app.routeTable.length > 10);
    const undeclared = app.app.routeTable.filter((r) => r.access === undefined).map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(undeclared, []);
  });

  it('refuses bad keys and wrong roles on every secured route, and lets the right role through', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 100_000 });
    await seed(test);
    const appKey = await test.createKey('app');
    const adminKey = await test.createKey('admin');
    const revoked = await test.createKey('app');
    await test.app.inject({
      method: 'DELETE',
      url: `/api/admin/api-keys/${revoked.id}`,
      headers: { 'x-api-key': ADMIN_KEY },
    });
    const expired = await test.createKey('admin', { expiresAt: new Date(test.clock.now() + 60_000).toISOString() });
    test.clock.advance(120_000);

    const secured = test.app.routeTable.filter((r) => r.access !== 'public');
    const missing = secured.map((r) => `${r.method} ${r.url}`).filter((k) => !(k in SAMPLES));
    assert.deepEqual(missing, [], 'add a sample request for every new secured route');

    const refusals: [string, Record<string, string>, number, string][] = [
      ['no key', {}, 401, 'missing_api_key'],
      ['malformed key', { 'x-api-key': 'perch_not-a-key' }, 401, 'invalid_api_key'],
      [
        'bad checksum',
        { 'x-api-key': `${appKey.apiKey.slice(0, -1)}${appKey.apiKey.endsWith('A') ? 'B' : 'A'}` },
        401,
        'invalid_api_key',
      ],
      ['unknown key', { 'x-api-key': formatApiKey(randomBytes(32)) }, 401, 'invalid_api_key'],
      ['revoked key', { 'x-api-key': revoked.apiKey }, 401, 'api_key_revoked'],
      ['expired key', { 'x-api-key': expired.apiKey }, 401, 'api_key_expired'],
    ];
    for (const route of secured) {
      const name = `${route.method} ${route.url}`;
      const sample = SAMPLES[name];
      assert.ok(sample);
      for (const [label, headers, status, code] of refusals) {
        const request: InjectOptions = await sample(test);
        const response = await test.app.inject({ ...request, headers: { ...request.headers, ...headers } });
        assert.equal(response.statusCode, status, `${name} with ${label}: ${response.body}`);
        assert.equal(response.json().code, code, `${name} with ${label}`);
        assert.match(String(response.headers['www-authenticate']), /^ApiKey /, `${name} with ${label} challenges`);
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      }
      if (route.access === 'admin') {
        const request = await sample(test);
        const response = await test.app.inject({
          ...request,
          headers: { ...request.headers, 'x-api-key': appKey.apiKey },
        });
        assert.equal(response.statusCode, 403, `${name} with an app key`);
        assert.match(response.json().detail, /needs the admin role/);
      }
      const allowedKeys = route.access === 'admin' ? [adminKey.apiKey, ADMIN_KEY] : [appKey.apiKey, adminKey.apiKey];
      for (const key of allowedKeys) {
        const request = await sample(test);
        const response = await test.app.inject({ ...request, headers: { ...request.headers, 'x-api-key': key } });
        assert.ok(
          response.statusCode >= 200 && response.statusCode < 300,
          `${name} with the right role: ${response.statusCode} ${response.body}`,
        );
      }
    }
  });

  it('ignores a key in the query string', async (t) => {
    const test = await build(t);
    const { apiKey } = await test.createKey('app');
    const response = await test.app.inject({ method: 'GET', url: `/api/me?x-api-key=${apiKey}&api_key=${apiKey}` });
    assert.equal(response.statusCode, 401);
  });

  it('throttles a client after repeated failed authentications, but never refuses its good key', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 5 });
    const { apiKey } = await test.createKey('app');
    for (let i = 0; i < 5; i += 1) {
      const response = await test.app.inject({
        method: 'GET',
        url: '/api/me',
        headers: { 'x-api-key': formatApiKey(randomBytes(32)) },
      });
      assert.equal(response.statusCode, 401);
    }
    const blocked = await test.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { 'x-api-key': formatApiKey(randomBytes(32)) },
    });
    assert.equal(blocked.statusCode, 429);
    assert.equal(blocked.json().code, 'too_many_auth_failures');
    assert.ok(Number(blocked.headers['retry-after']) >= 1);
    const good = await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': apiKey } });
    assert.equal(good.statusCode, 200);
    test.clock.advance(61_000);
    const again = await test.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { 'x-api-key': formatApiKey(randomBytes(32)) },
    });
    assert.equal(again.statusCode, 401);
  });

  it('limits each key to RATE_LIMIT_PER_MINUTE requests with 429 and Retry-After', async (t) => {
    const test = await build(t, { rateLimitPerMinute: 3 });
    const { apiKey } = await test.createKey('app');
    const other = await test.createKey('app');
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i += 1) {
      last = await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': apiKey } });
      statuses.push(last.statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assert.equal(last?.json().code, 'rate_limited');
    assert.ok(Number(last?.headers['retry-after']) >= 1);
    const fresh = await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': other.apiKey } });
    assert.equal(fresh.statusCode, 200, 'another key has its own budget');
  });

  it('answers /api/me with the caller', async (t) => {
    const test = await build(t);
    const { apiKey, id } = await test.createKey('app');
    const me = await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': apiKey } });
    assert.deepEqual(me.json(), { keyId: id, role: 'app', username: 'user-app', name: null, expiresAt: null });
  });
});
