// GET /api/accounts/count over HTTP: the list's filters counted exactly, refused when malformed;
// the dashboard's Accounts page says how many match, and the Overview shows the same counts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY };

async function setUp(t: Parameters<typeof build>[0]): Promise<TestApp> {
  const test = await build(t);
  const file = 'username,platform,tags\nann,x,vip\nandy,x,vip;press\nbob,x,\ncat.bsky.social,bluesky,vip\n';
  const imported = await test.admin('POST', '/api/admin/insert', { file });
  assert.equal(imported.statusCode, 200, imported.body);
  const paused = await test.app.inject({
    method: 'PATCH',
    url: '/api/admin/accounts/x/andy',
    headers: admin,
    payload: { paused: true },
  });
  assert.equal(paused.statusCode, 200, paused.body);
  return test;
}

describe('GET /api/accounts/count', () => {
  it('counts each filter alone and combined, exactly, for app keys', async (t) => {
    const test = await setUp(t);
    const { apiKey } = await test.createKey('app');
    const cases: [string, number][] = [
      ['', 4],
      ['?status=pending', 3],
      ['?status=paused', 1],
      ['?platform=bluesky', 1],
      ['?tag=vip', 3],
      ['?tag=vip&platform=x', 2],
      ['?tag=press&status=paused', 1],
      ['?q=an', 2],
      ['?q=%40AN&tag=vip&status=pending', 1],
      ['?tag=nothing', 0],
      ['?q=zz', 0],
    ];
    for (const [query, count] of cases) {
      const response = await test.app.inject({
        method: 'GET',
        url: `/api/accounts/count${query}`,
        headers: { 'x-api-key': apiKey },
      });
      assert.equal(response.statusCode, 200, `${query} ${response.body}`);
      assert.deepEqual(response.json(), { count }, query);
      const page = await test.app.inject({ method: 'GET', url: `/api/${query || '?'}&limit=500`, headers: admin });
      assert.equal(page.json().data.length, count, `the page of ${query} holds as many`);
    }
  });

  it('refuses malformed filters with a problem and no key with 401', async (t) => {
    const test = await build(t);
    for (const query of ['?status=gone', '?platform=myspace', '?tag=a%2Cb!', '?sort=username', '?q=']) {
      const response = await test.app.inject({ method: 'GET', url: `/api/accounts/count${query}`, headers: admin });
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(response.json().code, 'validation_failed', query);
    }
    assert.equal((await test.app.inject({ method: 'GET', url: '/api/accounts/count' })).statusCode, 401);
  });

  it('is described in the OpenAPI document with its filters and answer', async (t) => {
    const test = await build(t);
    const doc = (await test.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const operation = doc.paths['/api/accounts/count'].get;
    assert.deepEqual(operation.parameters.map((p: { name: string }) => p.name).sort(), [
      'platform',
      'q',
      'status',
      'tag',
    ]);
    assert.deepEqual(Object.keys(operation.responses['200'].content['application/json'].schema.properties), ['count']);
    const list = doc.paths['/api/'].get.description as string;
    assert.match(list, /nextCursor` is null exactly when nothing more matches/);
  });
});

describe('the dashboard counts', () => {
  it('says how many accounts match on Accounts, and shows the kept counts on the Overview', async (t) => {
    const test = await setUp(t);
    const signIn = await test.app.inject({
      method: 'POST',
      url: '/ui/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ apiKey: ADMIN_KEY }).toString(),
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    const page = async (url: string) => (await test.app.inject({ method: 'GET', url, headers: { cookie } })).body;
    assert.match(await page('/ui/accounts?tag=vip'), /<p id="match-count">3 accounts match<\/p>/);
    assert.match(await page('/ui/accounts?q=an&status=paused'), /<p id="match-count">1 account matches<\/p>/);
    assert.match(await page('/ui/accounts?tag=nothing'), /<p id="match-count">0 accounts match<\/p>/);
    const overview = await page('/ui/');
    const row = /<tr data-status="pending">(.*?)<\/tr>/s.exec(overview)?.[1] ?? '';
    assert.match(row, /status=pending">2<\/a>.*status=pending">1<\/a>.*status=pending">3<\/a>/s, row);
  });
});
