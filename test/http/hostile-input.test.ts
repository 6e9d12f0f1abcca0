// Inputs a careless or hostile client may send: forged cursors, control characters, duplicate
// names, concurrent overlapping imports, an undeclared route. All are 4xx or handled, never 500.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY };
const cursor = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

describe('hostile input', () => {
  it('refuses forged cursors and control characters in filters with 400', async (t) => {
    const test = await build(t);
    await test.admin('POST', '/api/admin/insert', { file: 'jack\nalice\n' });
    const urls = [
      `/api/?sort=-followers&cursor=${cursor(['-followers', 'abc', 3])}`,
      `/api/?sort=-followers&cursor=${cursor(['-followers', 1.5, 3])}`,
      `/api/?sort=-followers&cursor=${cursor(['-followers', 1e300, 3])}`,
      `/api/?sort=-followers&cursor=${cursor(['-followers', -1, 1.5])}`,
      `/api/?cursor=${cursor(['username', 'a\u0000b', 3])}`,
      `/api/?cursor=${cursor(['username', 'a', 3, 'extra'])}`,
      `/api/admin/imports?cursor=${cursor(['imports', 1.5, 'imp_x'])}`,
      '/api/?q=a%00',
      '/api/?tag=a%00',
      '/api/?tag=foo%2Fbar',
    ];
    for (const url of urls) {
      const response = await test.app.inject({ method: 'GET', url, headers: admin });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
    }
    const note = await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/jack',
      headers: admin,
      payload: { note: 'a\u0000b' },
    });
    assert.equal(note.statusCode, 400);
    const lines = await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/jack',
      headers: admin,
      payload: { note: 'line 1\nline 2' },
    });
    assert.equal(lines.statusCode, 200);
  });

  it('answers a batch once per account, whatever spellings name it', async (t) => {
    const test = await build(t);
    await test.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload: { file: 'jack\n' } });
    const response = await test.app.inject({
      method: 'GET',
      url: '/api/?usernames=jack,@jack,JACK,https%3A%2F%2Fx.com%2Fjack,nobody,@nobody',
      headers: admin,
    });
    assert.deepEqual(
      response.json().data.map((a: { username: string }) => a.username),
      ['jack'],
    );
    assert.deepEqual(response.json().missing, ['nobody']);
  });

  it('runs overlapping imports at the same time without a deadlock or a lost count', async (t) => {
    const test = await build(t);
    const names = Array.from({ length: 3_000 }, (_, i) => `over${i}`);
    const send = (list: string[]) =>
      test.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload: { file: list.join('\n') } });
    const [up, down] = await Promise.all([send(names), send([...names].reverse())]);
    // PostgreSQL refuses an import while another is written (409, no pool slot held waiting);
    // SQLite queues it behind the first. Either way nothing is lost or counted twice.
    const done = [up, down].filter((r) => r.statusCode === 200);
    for (const refused of [up, down].filter((r) => r.statusCode !== 200))
      assert.equal(refused.json().code, 'import_in_progress', refused.body);
    assert.ok(done.length >= 1);
    assert.equal(
      done.reduce((n, r) => n + r.json().inserted, 0),
      3_000,
    );
    assert.equal(
      done.reduce((n, r) => n + r.json().alreadyTracked, 0),
      3_000 * (done.length - 1),
    );
  });

  it('brings a paused, untracked account back unpaused when it is imported again', async (t) => {
    const test = await build(t);
    await test.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload: { file: 'jack\n' } });
    await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/jack',
      headers: admin,
      payload: { paused: true },
    });
    await test.app.inject({ method: 'DELETE', url: '/api/admin/accounts/x/jack', headers: admin });
    const again = await test.admin('POST', '/api/admin/insert', { file: 'jack\n' });
    assert.equal(again.json().reactivated, 1);
    const jack = (await test.app.inject({ method: 'GET', url: '/api/?username=jack', headers: admin })).json();
    assert.equal(jack.status, 'pending');
    assert.equal(jack.statusReason, null);
  });

  it('refuses a text/csv upload of one unbroken value, or a quote never closed, with 422 and changes nothing', async (t) => {
    const test = await build(t);
    const bodies = [Buffer.alloc(3_000_000, 'a'), Buffer.from(`username\njack\n"alice\n${'bob\n'.repeat(600_000)}`)];
    for (const payload of bodies) {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/admin/insert',
        headers: { ...admin, 'content-type': 'text/csv' },
        payload,
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.equal(response.json().code, 'csv_malformed');
      assert.match(response.json().detail, /longer than 1 MiB/);
    }
    const listed = await test.app.inject({ method: 'GET', url: '/api/admin/imports', headers: admin });
    assert.deepEqual(listed.json().data, []);
  });

  it('answers 404, not 405, for a missing file under a GET route', async (t) => {
    const test = await build(t);
    const response = await test.app.inject({ method: 'GET', url: '/api/docs/static/nonexistent.js' });
    assert.equal(response.statusCode, 404);
    const long = await test.app.inject({ method: 'PUT', url: `/api/accounts/x/${'a'.repeat(150)}`, headers: admin });
    assert.equal(long.statusCode, 405);
  });

  it('refuses to start with a route that declares no access', async (t) => {
    await assert.rejects(
      build(t, {}, {}, (app) => {
        app.get('/api/admin/danger', async () => ({ secret: true }));
      }),
      /routes without a declared access role: GET \/api\/admin\/danger/,
    );
  });
});
