// Reading accounts: one by query or path, a batch with `missing`, filtered and sorted cursor
// pages that stay stable under concurrent inserts, and the admin PATCH / DELETE.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY };

async function insert(t: TestApp, file: string) {
  const response = await t.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload: { file } });
  assert.equal(response.statusCode, 200, response.body);
}

async function get(t: TestApp, url: string, key = ADMIN_KEY) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

describe('GET /api/', () => {
  it('returns one account by username, @name, URL or path, case-insensitively, and 404 when untracked', async (t) => {
    const test = await build(t);
    await insert(test, 'username,platform,tags\nJack,x,founders\nalice.bsky.social,bluesky,\n');
    const { apiKey } = await test.createKey('app');
    for (const url of [
      '/api/?username=jack',
      '/api/?username=%40JACK',
      '/api/?username=https%3A%2F%2Fx.com%2Fjack',
      '/api/?username=jack&platform=x',
      '/api/accounts/x/JACK',
    ]) {
      const response = await get(test, url, apiKey);
      assert.equal(response.statusCode, 200, url);
      const account = response.json();
      assert.equal(account.username, 'Jack');
      assert.equal(account.platform, 'x');
      assert.deepEqual(
        Object.keys(account).sort(),
        [
          'analysis',
          'id',
          'metrics',
          'note',
          'platform',
          'platformUserId',
          'profile',
          'renames',
          'status',
          'statusReason',
          'tags',
          'tracking',
          'username',
        ].sort(),
      );
      assert.equal(account.profile, null);
      assert.equal(account.tracking.consecutiveFailures, 0);
    }
    assert.equal((await get(test, '/api/?username=alice.bsky.social', apiKey)).json().platform, 'bluesky');
    const missing = await get(test, '/api/?username=nobody', apiKey);
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'account_not_found');
    const invalid = await get(test, '/api/?username=bad%20name', apiKey);
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().code, 'invalid_username');
    const badPlatform = await get(test, '/api/accounts/myspace/jack', apiKey);
    assert.equal(badPlatform.statusCode, 400);
  });

  it('returns a batch with the names it does not track', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\nalice\n');
    const response = await get(test, '/api/?usernames=jack,nobody,ALICE');
    assert.equal(response.statusCode, 200);
    assert.deepEqual(
      response.json().data.map((a: { username: string }) => a.username),
      ['jack', 'alice'],
    );
    assert.deepEqual(response.json().missing, ['nobody']);
    const tooMany = await get(test, `/api/?usernames=${Array.from({ length: 101 }, (_, i) => `u${i}`).join(',')}`);
    assert.equal(tooMany.statusCode, 400);
  });

  it('pages through every account once, even while accounts are inserted between pages', async (t) => {
    const test = await build(t);
    const names = Array.from({ length: 25 }, (_, i) => `user${String(i).padStart(2, '0')}`);
    await insert(test, names.join('\n'));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await get(test, `/api/?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(response.statusCode, 200, response.body);
      const page: { data: { username: string }[]; nextCursor: string | null } = response.json();
      seen.push(...page.data.map((a) => a.username));
      cursor = page.nextCursor;
      if (pages === 0) await insert(test, 'aaa_first\nzzz_last\n'); // one before the cursor, one after
      pages += 1;
    } while (cursor !== null);
    assert.deepEqual(seen, [...names, 'zzz_last']);
    assert.equal(new Set(seen).size, seen.length);
  });

  it('filters by status, platform, tag and prefix, and refuses a foreign cursor', async (t) => {
    const test = await build(t);
    await insert(test, 'username,tags\njack,founders|press\njason,press\nbob,\ncarol.bsky.social,founders\n');
    const names = async (query: string) =>
      (await get(test, `/api/?${query}`)).json().data.map((a: { username: string }) => a.username);
    assert.deepEqual(await names('tag=founders'), ['carol.bsky.social', 'jack']);
    assert.deepEqual(await names('q=ja'), ['jack', 'jason']);
    assert.deepEqual(await names('platform=bluesky'), ['carol.bsky.social']);
    assert.deepEqual(await names('status=active'), []);
    assert.equal((await names('status=pending')).length, 4);
    assert.deepEqual(await names('q=ja&tag=press&sort=-followers'), ['jason', 'jack']);
    const page = (await get(test, '/api/?limit=1&sort=-lastCheckedAt')).json();
    const foreign = await get(test, `/api/?limit=1&sort=username&cursor=${page.nextCursor}`);
    assert.equal(foreign.statusCode, 400);
    assert.equal(foreign.json().code, 'invalid_cursor');
    for (const bad of ['limit=0', 'limit=501', 'sort=followers', 'status=sleeping', 'nonsense=1']) {
      const response = await get(test, `/api/?${bad}`);
      assert.equal(response.statusCode, 400, bad);
      assert.equal(response.json().code, 'validation_failed');
    }
  });
});

describe('admin account changes', () => {
  it('pauses, resumes and labels an account, with an audit entry each', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    const paused = await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/jack',
      headers: admin,
      payload: { paused: true, tags: ['vip'] },
    });
    assert.equal(paused.statusCode, 200);
    assert.equal(paused.json().status, 'paused');
    assert.equal(paused.json().tracking.nextCheckAt, null);
    assert.deepEqual(paused.json().tags, ['vip']);
    const resumed = await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/jack',
      headers: admin,
      payload: { paused: false },
    });
    assert.equal(resumed.json().status, 'pending');
    assert.equal(resumed.json().tracking.nextCheckAt, new Date(test.clock.now()).toISOString());
    for (const payload of [{}, { paused: 'yes' }, { tags: ['a', 'a'] }, { colour: 'red' }]) {
      const bad = await test.app.inject({
        method: 'PATCH',
        url: '/api/admin/accounts/x/jack',
        headers: admin,
        payload,
      });
      assert.equal(bad.statusCode, 400, JSON.stringify(payload));
    }
    const unknown = await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/nobody',
      headers: admin,
      payload: { paused: true },
    });
    assert.equal(unknown.statusCode, 404);
    const audit = (await get(test, '/api/admin/audit'))
      .json()
      .data.filter((e: { action: string }) => e.action === 'account.update');
    assert.equal(audit.length, 2);
  });

  it('stops tracking (kept) or purges (gone for good)', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\nalice\n');
    assert.equal(
      (await test.app.inject({ method: 'DELETE', url: '/api/admin/accounts/x/jack', headers: admin })).statusCode,
      200,
    );
    assert.equal(
      (await test.app.inject({ method: 'DELETE', url: '/api/admin/accounts/x/jack', headers: admin })).statusCode,
      404,
    );
    const kept = await test.deps.store.db
      .selectFrom('accounts')
      .select('untracked_at')
      .where('username_key', '=', 'jack')
      .executeTakeFirst();
    assert.ok(kept?.untracked_at);
    const purged = await test.app.inject({
      method: 'DELETE',
      url: '/api/admin/accounts/x/alice?purge=true',
      headers: admin,
    });
    assert.deepEqual(purged.json(), { success: true, purged: true });
    const gone = await test.deps.store.db
      .selectFrom('accounts')
      .select('id')
      .where('username_key', '=', 'alice')
      .executeTakeFirst();
    assert.equal(gone, undefined);
  });
});
