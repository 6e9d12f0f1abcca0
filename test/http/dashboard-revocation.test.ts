// Revoking a key from the dashboard is the same use case as DELETE /api/admin/api-keys/:id: the key
// is refused on this process at once, even while the revocation waits for the store's writer (an
// import holding SQLite's one writer, a long transaction holding the key's row on PostgreSQL),
// and a revocation that fails gives the key back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function dashboardAs(test: TestApp, key: string): Promise<{ cookie: string; csrf: string }> {
  const signedIn = await test.app.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: FORM,
    payload: new URLSearchParams({ apiKey: key }).toString(),
  });
  const cookie = String(signedIn.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  const page = await test.app.inject({ method: 'GET', url: '/ui/keys', headers: { cookie } });
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page.body)?.[1];
  assert.ok(csrf, 'the keys page carries a CSRF token');
  return { cookie, csrf };
}

const revokeFromDashboard = (test: TestApp, id: string, as: { cookie: string; csrf: string }) =>
  test.app.inject({
    method: 'POST',
    url: `/ui/keys/${id}/revoke`,
    headers: { ...FORM, cookie: as.cookie },
    payload: `_csrf=${encodeURIComponent(as.csrf)}`,
  });

const me = (test: TestApp, key: string) =>
  test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': key } });

describe('revoking a key from the dashboard', () => {
  it(
    'refuses the key within the bound while the store writer is busy, before the revocation is written',
    { timeout: 60_000 },
    async (t) => {
      const test = await build(t);
      const key = await test.createKey('app');
      // Trusted from the cache from now on: the test's clock stands still, so only the revocation
      // (not the cache's expiry) can refuse it.
      assert.equal((await me(test, key.apiKey)).statusCode, 200);
      const admin = await dashboardAs(test, ADMIN_KEY);

      // Hold the writer: on SQLite the one writer connection, on PostgreSQL the key's row, which
      // the revocation must update.
      // (The waits for a stalled store run on unref'd timers: with nothing listening, this keeps the
      // test's event loop alive meanwhile, as a server's socket would.)
      const alive = setInterval(() => {}, 100);
      let release = () => {};
      let holding = () => {};
      const held = new Promise<void>((resolve) => (holding = resolve));
      const writer = test.deps.store.db.transaction().execute(async (trx) => {
        await trx.updateTable('api_keys').set({ name: 'held' }).where('id', '=', key.id).execute();
        holding();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await held;

      let written = false;
      const started = performance.now();
      const revoking = revokeFromDashboard(test, key.id, admin).then((response) => ((written = true), response));
      let answer = await me(test, key.apiKey);
      while (answer.statusCode === 200 && performance.now() - started < test.config.keyCacheTtlMs)
        answer = await me(test, key.apiKey);
      const took = performance.now() - started;
      const writtenFirst = written;
      release();
      await writer;
      clearInterval(alive);

      assert.equal(answer.statusCode, 401, `still served ${Math.round(took)} ms after the revocation began`);
      assert.equal(answer.json().code, 'api_key_revoked');
      assert.ok(took < test.config.keyCacheTtlMs, `refused after ${Math.round(took)} ms`);
      assert.equal(writtenFirst, false, 'refused while the revocation waited for the writer');
      const done = await revoking;
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/ui/keys?done=revoked');
      assert.equal((await me(test, key.apiKey)).statusCode, 401, 'and refused once it is written');
      const listed = await test.app.inject({
        method: 'GET',
        url: '/api/admin/api-keys?includeRevoked=true',
        headers: { 'x-api-key': ADMIN_KEY },
      });
      const stored = listed
        .json<{ data: { id: string; revokedAt: string | null }[] }>()
        .data.find((k) => k.id === key.id);
      assert.ok(stored?.revokedAt, 'the revocation is stored');
    },
  );

  it('gives the key back when the revocation is refused', async (t) => {
    const test = await build(t, { adminApiKey: null });
    const only = test.firstAdminKey;
    assert.ok(only, 'a first-run admin key was made');
    const { keyId } = (await me(test, only)).json<{ keyId: string }>();
    const admin = await dashboardAs(test, only);
    const refused = await revokeFromDashboard(test, keyId, admin);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /last admin key/);
    assert.equal((await me(test, only)).statusCode, 200, 'the last admin key still works');
  });
});
