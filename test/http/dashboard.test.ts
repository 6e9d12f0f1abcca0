// The dashboard's sessions and guards over HTTP, on every store: the cookie's attributes, the
// session kept in the store (so another process serves it), revocation and expiry ending it,
// CSRF on every form, app keys read-only, fingerprinted assets and the Content-Security-Policy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function signIn(test: TestApp, key: string, headers: Record<string, string> = {}, next?: string) {
  const payload = new URLSearchParams({ apiKey: key, ...(next !== undefined ? { next } : {}) }).toString();
  const response = await test.app.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: { ...FORM, ...headers },
    payload,
  });
  const setCookie = String(response.headers['set-cookie'] ?? '');
  return { response, setCookie, cookie: setCookie.split(';')[0] ?? '' };
}

async function csrfOf(test: TestApp, cookie: string): Promise<string> {
  const page = await test.app.inject({ method: 'GET', url: '/ui/', headers: { cookie } });
  const token = /<meta name="csrf-token" content="([^"]+)">/.exec(page.body)?.[1];
  assert.ok(token, 'the page carries a CSRF token');
  return token;
}

describe('dashboard sessions', () => {
  it('exchanges a key for an HttpOnly, SameSite=Strict cookie holding no key; a wrong key gets the API detail', async (t) => {
    const test = await build(t);
    const wrong = await signIn(test, 'perch_wrong');
    assert.equal(wrong.response.statusCode, 401);
    assert.match(wrong.response.body, /The API key is not valid\./);
    assert.equal(wrong.setCookie, '');
    const { response, setCookie } = await signIn(test, ADMIN_KEY);
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/ui/');
    assert.match(setCookie, /^perch_session=[A-Za-z0-9_-]{43}; Path=\/ui; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    assert.ok(!setCookie.includes(ADMIN_KEY));
    const stored = await test.deps.store.db.selectFrom('ui_sessions').selectAll().execute();
    assert.equal(stored.length, 1);
    assert.ok(
      !JSON.stringify(stored).includes(setCookie.split(';')[0]?.split('=')[1] ?? 'x'),
      'only a hash of the cookie is stored',
    );
  });

  it("counts failed sign-ins with the API's failed authentications", async (t) => {
    const test = await build(t, { authFailuresPerMinute: 2 });
    assert.equal((await signIn(test, 'perch_wrong')).response.statusCode, 401);
    assert.equal((await signIn(test, 'perch_wrong')).response.statusCode, 401);
    const throttled = await signIn(test, 'perch_wrong');
    assert.equal(throttled.response.statusCode, 429);
    assert.match(throttled.response.body, /Too many failed sign-ins/);
    // The throttle limits failures, never successes.
    assert.equal((await signIn(test, ADMIN_KEY)).response.statusCode, 303);
  });

  it('goes back to the page asked for, never to another site', async (t) => {
    const test = await build(t);
    assert.equal(
      (await signIn(test, ADMIN_KEY, {}, '/ui/accounts?q=al&sort=-followers')).response.headers.location,
      '/ui/accounts?q=al&sort=-followers',
    );
    for (const next of [
      '//evil.example/',
      'https://evil.example/',
      '/ui//evil.example',
      '/ui/\\evil.example',
      '/api/me',
      '/ui/x\r\nset-cookie: a=b',
    ]) {
      assert.equal((await signIn(test, ADMIN_KEY, {}, next)).response.headers.location, '/ui/', next);
    }
  });

  it('names the cookie __Host- and marks it Secure behind HTTPS; the plain name is not read there', async (t) => {
    const test = await build(t, { trustProxy: true });
    const https = { 'x-forwarded-proto': 'https' };
    const { setCookie, cookie } = await signIn(test, ADMIN_KEY, https);
    assert.match(
      setCookie,
      /^__Host-perch_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/,
    );
    const page = (headers: Record<string, string>) => test.app.inject({ method: 'GET', url: '/ui/keys', headers });
    assert.equal((await page({ ...https, cookie })).statusCode, 200);
    // A cookie set without the prefix (by a plain-HTTP page or a subdomain) does not sign anyone in.
    const plain = cookie.replace('__Host-', '');
    assert.equal((await page({ ...https, cookie: plain })).statusCode, 303);
  });

  it('refuses a sign-in posted from another site (login CSRF), by Sec-Fetch-Site or Origin', async (t) => {
    const test = await build(t);
    for (const headers of [
      { 'sec-fetch-site': 'cross-site' } as Record<string, string>,
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ]) {
      const { response, setCookie } = await signIn(test, ADMIN_KEY, headers);
      assert.equal(response.statusCode, 403, JSON.stringify(headers));
      assert.equal(setCookie, '', 'no session is opened');
    }
    assert.equal((await test.deps.store.db.selectFrom('ui_sessions').selectAll().execute()).length, 0);
    const host = { host: 'perch.example:3000' };
    const allowed: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-origin' },
      { ...host, origin: 'http://perch.example:3000' },
      {},
    ];
    for (const headers of allowed)
      assert.equal((await signIn(test, ADMIN_KEY, headers)).response.statusCode, 303, JSON.stringify(headers));
  });

  it('is served by another process on the same store, and ends with revocation, expiry or sign-out', async (t) => {
    const test = await build(t);
    const key = await test.createKey('app');
    const { cookie } = await signIn(test, key.apiKey);
    // The session lives in the store: a second app on it (another process) serves it.
    const other = await build(t, {}, { DATABASE_URL: test.config.databaseUrl });
    assert.equal((await other.app.inject({ method: 'GET', url: '/ui/accounts', headers: { cookie } })).statusCode, 200);
    await other.app.inject({
      method: 'DELETE',
      url: `/api/admin/api-keys/${key.id}`,
      headers: { 'x-api-key': ADMIN_KEY },
    });
    const after = await test.app.inject({ method: 'GET', url: '/ui/accounts', headers: { cookie } });
    assert.equal(after.statusCode, 303);
    assert.equal(after.headers.location, '/ui/sign-in?next=%2Fui%2Faccounts');

    const admin = await signIn(test, ADMIN_KEY);
    test.clock.advance(12 * 3_600_000);
    assert.equal(
      (await test.app.inject({ method: 'GET', url: '/ui/', headers: { cookie: admin.cookie } })).statusCode,
      303,
    );

    const again = await signIn(test, ADMIN_KEY);
    const csrf = await csrfOf(test, again.cookie);
    const out = await test.app.inject({
      method: 'POST',
      url: '/ui/sign-out',
      headers: { ...FORM, cookie: again.cookie },
      payload: `_csrf=${csrf}`,
    });
    assert.equal(out.statusCode, 303);
    assert.equal(
      (await test.app.inject({ method: 'GET', url: '/ui/', headers: { cookie: again.cookie } })).statusCode,
      303,
    );
  });

  it('refuses a form without its CSRF token, and an app key acting, changing nothing', async (t) => {
    const test = await build(t);
    await test.admin('POST', '/api/admin/insert', { file: 'jack\n' });
    const { cookie } = await signIn(test, ADMIN_KEY);
    const csrf = await csrfOf(test, cookie);
    const missing = await test.app.inject({
      method: 'POST',
      url: '/ui/accounts/x/jack/pause',
      headers: { ...FORM, cookie },
      payload: '',
    });
    assert.equal(missing.statusCode, 403);
    const viaScript = await test.app.inject({
      method: 'POST',
      url: '/ui/accounts/x/jack/pause',
      headers: { ...FORM, cookie, accept: 'application/json' },
      payload: '_csrf=nope',
    });
    assert.equal(viaScript.statusCode, 403);
    assert.equal(viaScript.json().code, 'forbidden');
    assert.equal(
      (
        await test.app.inject({ method: 'GET', url: '/api/accounts/x/jack', headers: { 'x-api-key': ADMIN_KEY } })
      ).json().status,
      'pending',
    );
    const paused = await test.app.inject({
      method: 'POST',
      url: '/ui/accounts/x/jack/pause',
      headers: { ...FORM, cookie },
      payload: `_csrf=${csrf}`,
    });
    assert.equal(paused.statusCode, 303);
    assert.equal(
      (
        await test.app.inject({ method: 'GET', url: '/api/accounts/x/jack', headers: { 'x-api-key': ADMIN_KEY } })
      ).json().status,
      'paused',
    );

    const app = await test.createKey('app');
    const reader = await signIn(test, app.apiKey);
    const readerCsrf = await csrfOf(test, reader.cookie);
    const refused = await test.app.inject({
      method: 'POST',
      url: '/ui/accounts/x/jack/resume',
      headers: { ...FORM, cookie: reader.cookie },
      payload: `_csrf=${readerCsrf}`,
    });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /needs an admin key/);
    assert.equal(
      (
        await test.app.inject({ method: 'GET', url: '/api/accounts/x/jack', headers: { 'x-api-key': ADMIN_KEY } })
      ).json().status,
      'paused',
    );
  });

  it('sends browsers from / to the dashboard, serves fingerprinted assets for a year, and allows no inline script', async (t) => {
    const test = await build(t);
    const root = await test.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    assert.equal(root.statusCode, 303);
    assert.equal(root.headers.location, '/ui/');
    assert.equal((await test.app.inject({ method: 'GET', url: '/' })).statusCode, 404);
    const page = await test.app.inject({ method: 'GET', url: '/ui/sign-in' });
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(page.headers['cache-control'], 'no-store');
    const assets = [...page.body.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
    assert.ok(assets.length >= 2);
    for (const url of assets) {
      assert.match(url, /\/[a-z]+\.[0-9a-f]{12}\.(js|css)$/);
      const asset = await test.app.inject({ method: 'GET', url });
      assert.equal(asset.statusCode, 200);
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    }
    assert.equal((await test.app.inject({ method: 'GET', url: '/ui/assets/app.000000000000.js' })).statusCode, 404);
    assert.doesNotMatch(page.body, /<script>|<script(?![^>]*\bsrc=)(?![^>]*application\/json)[^>]*>/);
  });

  it('manages webhooks for admin keys only, and serves the events that follow a position', async (t) => {
    const test = await build(t, {}, { WEBHOOK_ALLOW_PRIVATE: 'true' });
    const { cookie } = await signIn(test, ADMIN_KEY);
    const csrf = await csrfOf(test, cookie);
    const form = new URLSearchParams([
      ['_csrf', csrf],
      ['url', 'http://127.0.0.1:9/hook'],
      ['events', 'webhook.test'],
      ['events', 'import.completed'],
    ]).toString();
    const created = await test.app.inject({
      method: 'POST',
      url: '/ui/webhooks',
      headers: { ...FORM, cookie },
      payload: form,
    });
    assert.equal(created.statusCode, 201);
    assert.match(created.body, /Signing secret/);
    const hooks = (
      await test.app.inject({ method: 'GET', url: '/api/admin/webhooks', headers: { 'x-api-key': ADMIN_KEY } })
    ).json<{ data: { id: string; events: string[] }[] }>().data;
    assert.deepEqual(
      hooks.map((h) => [...h.events].sort()),
      [['import.completed', 'webhook.test']],
    );
    const id = hooks[0]?.id ?? '';
    const feed = async (after: number) =>
      (await test.app.inject({ method: 'GET', url: `/ui/events/feed?after=${after}`, headers: { cookie } })).json<{
        after: number;
        rows: string;
      }>();
    const start = await feed(0);
    const tested = await test.app.inject({
      method: 'POST',
      url: `/ui/webhooks/${id}/test`,
      headers: { ...FORM, cookie },
      payload: `_csrf=${encodeURIComponent(csrf)}`,
    });
    assert.equal(tested.statusCode, 303);
    const next = await feed(start.after);
    assert.match(next.rows, /webhook\.test/);
    assert.ok(next.after > start.after);
    assert.equal((await feed(next.after)).rows, '');
    const app = await test.createKey('app');
    const reader = await signIn(test, app.apiKey);
    assert.equal(
      (await test.app.inject({ method: 'GET', url: '/ui/webhooks', headers: { cookie: reader.cookie } })).statusCode,
      403,
    );
    assert.equal(
      (await test.app.inject({ method: 'GET', url: '/ui/events', headers: { cookie: reader.cookie } })).statusCode,
      200,
    );
    // A filter the page does not know is a 400 that names the field, never a 500.
    for (const query of ['type=nope', 'platform=myspace', `username=${'a'.repeat(101)}`, 'colour=red']) {
      const bad = await test.app.inject({
        method: 'GET',
        url: `/ui/events?${query}`,
        headers: { cookie: reader.cookie, accept: 'application/json' },
      });
      assert.equal(bad.statusCode, 400, query);
      assert.equal(bad.json<{ code: string }>().code, 'validation_failed', query);
    }
  });
});
