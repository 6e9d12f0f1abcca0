// An account's history (JSON pages and the injection-safe CSV export), its stored posts, and the
// admin refresh that makes it due now. Snapshots and posts are written straight into the store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAccountRowId } from '../../src/storage/accounts-repo.ts';
import { upsertSnapshots } from '../../src/storage/history-repo.ts';
import { insertPosts } from '../../src/storage/posts-repo.ts';
import type { Post } from '../../src/domain/post.ts';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY };
const HOUR = 3_600_000;
const BASE = Date.parse('2026-11-01T00:00:00.000Z');

async function insert(t: TestApp, file: string) {
  const response = await t.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload: { file } });
  assert.equal(response.statusCode, 200, response.body);
}

async function get(t: TestApp, url: string, key = ADMIN_KEY) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
}

async function rowId(t: TestApp, name: string, platform: 'x' | 'bluesky' = 'x'): Promise<number> {
  const id = await findAccountRowId(t.deps.store.db, { platform, key: name.toLowerCase() });
  assert.ok(id !== null, `${name} is tracked`);
  return id;
}

/** `count` hourly snapshots (written in a shuffled order), each 5 minutes into its bucket. */
async function seedHistory(t: TestApp, accountId: number, count: number) {
  const rows = Array.from({ length: count }, (_, i) => ({
    accountId,
    bucket: BASE + i * HOUR,
    observedAt: BASE + i * HOUR + 300_000,
    followers: 1000 + i,
    following: 50,
    posts: 200 + i,
    listed: i % 2 === 0 ? 3 : null,
  }));
  const shuffled = [...rows.filter((_, i) => i % 2 === 1), ...rows.filter((_, i) => i % 2 === 0)];
  await upsertSnapshots(t.deps.store.db, t.deps.store.caps, shuffled);
  return rows;
}

async function setDisplayName(t: TestApp, accountId: number, displayName: string | null) {
  const profile = {
    displayName,
    description: null,
    location: null,
    url: null,
    profileImageUrl: null,
    verified: false,
    protected: false,
    createdAt: null,
  };
  await t.deps.store.db
    .updateTable('accounts')
    .set({ profile: JSON.stringify(profile) })
    .where('id', '=', accountId)
    .execute();
}

function post(accountId: number, i: number, createdAt: number): Post {
  return {
    accountId,
    id: `p${String(i).padStart(3, '0')}`,
    createdAt,
    text: `post ${i} #tag${i % 3}`,
    url: `https://x.com/jack/status/${i}`,
    lang: 'en',
    sentiment: i % 2 === 0 ? 0.5 : null,
    isRepost: i === 3,
    isReply: i === 4,
    likes: i * 10,
    reposts: i,
    replies: 2,
    quotes: 1,
    hashtags: [`tag${i % 3}`],
    mentions: i === 1 ? ['alice'] : [],
    domains: i === 1 ? ['example.com'] : [],
    fetchedAt: createdAt + 1000,
    metricsObservedAt: createdAt + 1000,
    status: 'live',
    statusAt: null,
    metricsHistory: [],
  };
}

const expectProblem = (
  response: { statusCode: number; headers: Record<string, unknown>; json(): { code: string } },
  status: number,
  code: string,
  label = '',
) => {
  assert.equal(response.statusCode, status, label);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, label);
  assert.equal(response.json().code, code, label);
};

describe('GET /api/accounts/:platform/:username/history (JSON)', () => {
  it('lists snapshots oldest first, filters by from/to and names the bucket', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\nalice\n');
    const rows = await seedHistory(test, await rowId(test, 'jack'), 12);
    await seedHistory(test, await rowId(test, 'alice'), 3);
    const { apiKey } = await test.createKey('app');

    const all = await get(test, '/api/accounts/x/jack/history', apiKey);
    assert.equal(all.statusCode, 200, all.body);
    const body = all.json();
    assert.equal(body.bucket, '1h');
    assert.equal(body.nextCursor, null);
    assert.equal(body.data.length, 12);
    assert.deepEqual(body.data[0], {
      at: '2026-11-01T00:05:00.000Z',
      followers: 1000,
      following: 50,
      posts: 200,
      listed: 3,
    });
    assert.deepEqual(body.data[1], {
      at: '2026-11-01T01:05:00.000Z',
      followers: 1001,
      following: 50,
      posts: 201,
      listed: null,
    });
    assert.deepEqual(
      body.data.map((p: { followers: number }) => p.followers),
      rows.map((r) => r.followers),
    );

    const from = encodeURIComponent(new Date(rows[3]!.observedAt).toISOString());
    const to = encodeURIComponent(new Date(rows[6]!.observedAt).toISOString());
    const window = (await get(test, `/api/accounts/x/JACK/history?from=${from}&to=${to}`)).json();
    assert.deepEqual(
      window.data.map((p: { followers: number }) => p.followers),
      [1003, 1004, 1005, 1006],
    );
    const onlyFrom = (await get(test, `/api/accounts/x/jack/history?from=${from}`)).json();
    assert.equal(onlyFrom.data.length, 9);
    const offset = (await get(test, '/api/accounts/x/jack/history?to=2026-11-01T03:05:00%2B01:00')).json();
    assert.deepEqual(
      offset.data.map((p: { followers: number }) => p.followers),
      [1000, 1001, 1002],
      'a time-zone offset is honoured',
    );

    const empty = await get(test, '/api/accounts/x/jack/history?from=2030-01-01T00:00:00Z');
    assert.deepEqual(empty.json(), { data: [], nextCursor: null, bucket: '1h' });
  });

  it('pages through every snapshot once with the cursor', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    await seedHistory(test, await rowId(test, 'jack'), 12);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await get(test, `/api/accounts/x/jack/history?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(response.statusCode, 200, response.body);
      const page: { data: { followers: number }[]; nextCursor: string | null } = response.json();
      assert.ok(page.data.length <= 5);
      seen.push(...page.data.map((p) => p.followers));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      Array.from({ length: 12 }, (_, i) => 1000 + i),
    );
    const exact = (await get(test, '/api/accounts/x/jack/history?limit=12')).json();
    assert.equal(exact.nextCursor, null, 'no cursor when the page holds the last row');
  });

  it('describes another bucket width', async (t) => {
    const test = await build(t, { historyBucketMs: 15 * 60_000 });
    await insert(test, 'jack\n');
    assert.equal((await get(test, '/api/accounts/x/jack/history')).json().bucket, '15m');
  });

  it('refuses bad from, to, limit, cursor and format with a problem, and unknown accounts with 404', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    const url = '/api/accounts/x/jack/history';
    expectProblem(await get(test, `${url}?from=yesterday`), 400, 'validation_failed', 'from not a date');
    expectProblem(await get(test, `${url}?to=2026-13-45T00:00:00Z`), 400, 'validation_failed', 'impossible date');
    expectProblem(await get(test, `${url}?from=2026-11-01T00:00:00`), 400, 'validation_failed', 'no time zone');
    const reversed = await get(test, `${url}?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z`);
    expectProblem(reversed, 400, 'invalid_time_range');
    assert.match(reversed.json().detail, /from .* is after to/);
    expectProblem(await get(test, `${url}?limit=0`), 400, 'validation_failed', 'limit 0');
    expectProblem(await get(test, `${url}?limit=1001`), 400, 'validation_failed', 'limit over the JSON maximum');
    expectProblem(await get(test, `${url}?limit=ten`), 400, 'validation_failed', 'limit not a number');
    expectProblem(await get(test, `${url}?cursor=garbage`), 400, 'invalid_cursor');
    const postsCursor = Buffer.from(JSON.stringify(['posts', 1, 'p1'])).toString('base64url');
    expectProblem(
      await get(test, `${url}?cursor=${postsCursor}`),
      400,
      'invalid_cursor',
      'a cursor of another listing',
    );
    expectProblem(await get(test, `${url}?format=xml`), 400, 'validation_failed');
    expectProblem(await get(test, `${url}?extra=1`), 400, 'validation_failed');
    expectProblem(await get(test, '/api/accounts/x/nobody/history'), 404, 'account_not_found');
    expectProblem(await get(test, '/api/accounts/x/bad%20name/history'), 400, 'invalid_username');
    expectProblem(await get(test, '/api/accounts/myspace/jack/history'), 400, 'validation_failed');
    await test.app.inject({ method: 'DELETE', url: '/api/admin/accounts/x/jack', headers: admin });
    expectProblem(await get(test, url), 404, 'account_not_found', 'untracked');
  });
});

describe('GET /api/accounts/:platform/:username/history?format=csv', () => {
  it('exports a CSV file with the current name and every row', async (t) => {
    const test = await build(t);
    await insert(test, 'Jack\n');
    const id = await rowId(test, 'jack');
    await seedHistory(test, id, 4);
    await setDisplayName(test, id, 'Jack, the founder');
    const { apiKey } = await test.createKey('app');
    const response = await get(test, '/api/accounts/x/jack/history?format=csv', apiKey);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(response.headers['content-disposition'], 'attachment; filename="x-Jack-history.csv"');
    assert.equal(response.headers.link, undefined);
    assert.equal(
      response.body,
      [
        'observed_at,username,display_name,followers,following,posts,listed',
        '2026-11-01T00:05:00.000Z,Jack,"Jack, the founder",1000,50,200,3',
        '2026-11-01T01:05:00.000Z,Jack,"Jack, the founder",1001,50,201,',
        '2026-11-01T02:05:00.000Z,Jack,"Jack, the founder",1002,50,202,3',
        '2026-11-01T03:05:00.000Z,Jack,"Jack, the founder",1003,50,203,',
        '',
      ].join('\r\n'),
    );
    const windowed = await get(
      test,
      '/api/accounts/x/jack/history?format=csv&from=2026-11-01T01:00:00Z&to=2026-11-01T02:30:00Z',
    );
    assert.deepEqual(
      windowed.body
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
      ['2026-11-01T01:05:00.000Z', '2026-11-01T02:05:00.000Z'],
    );
  });

  it('writes only the header for an account without history, and an empty display name when there is none', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    const response = await get(test, '/api/accounts/x/jack/history?format=csv');
    assert.equal(response.body, 'observed_at,username,display_name,followers,following,posts,listed\r\n');
    await seedHistory(test, await rowId(test, 'jack'), 1);
    assert.equal(
      (await get(test, '/api/accounts/x/jack/history?format=csv')).body.split('\r\n')[1],
      '2026-11-01T00:05:00.000Z,jack,,1000,50,200,3',
    );
  });

  it('neutralises display names a spreadsheet would run as formulas', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    const id = await rowId(test, 'jack');
    await seedHistory(test, id, 1);
    const cases: [string, string][] = [
      ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
      ['=HYPERLINK("http://evil","x")', `"'=HYPERLINK(""http://evil"",""x"")"`],
      ['+1', "'+1"],
      ['-1', "'-1"],
      ['@x', "'@x"],
      ['\t=1+1', "'\t=1+1"],
      ['\r=1+1', `"'\r=1+1"`],
      ['line\nbreak', '"line\nbreak"'],
      ['Plain Name', 'Plain Name'],
    ];
    for (const [displayName, cell] of cases) {
      await setDisplayName(test, id, displayName);
      const response = await get(test, '/api/accounts/x/jack/history?format=csv');
      assert.equal(response.statusCode, 200);
      const body = response.body;
      const row = body.slice(body.indexOf('\r\n') + 2);
      assert.equal(row, `2026-11-01T00:05:00.000Z,jack,${cell},1000,50,200,3\r\n`, JSON.stringify(displayName));
    }
  });

  it('continues a long export through Link: rel="next" with the same cursor', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    await seedHistory(test, await rowId(test, 'jack'), 7);
    const followers: string[] = [];
    let url: string | null = '/api/accounts/x/jack/history?format=csv&limit=3&from=2026-10-01T00:00:00Z';
    let files = 0;
    while (url !== null) {
      const response = await get(test, url);
      assert.equal(response.statusCode, 200, response.body);
      const lines = response.body.split('\r\n');
      assert.equal(lines[0], 'observed_at,username,display_name,followers,following,posts,listed');
      followers.push(...lines.slice(1, -1).map((line) => line.split(',')[3] ?? ''));
      const link = response.headers.link;
      url = typeof link === 'string' ? (/^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? null) : null;
      if (url !== null) assert.match(url, /^\/api\/accounts\/x\/jack\/history\?format=csv&limit=3&from=.*&cursor=/);
      files += 1;
    }
    assert.equal(files, 3);
    assert.deepEqual(followers, ['1000', '1001', '1002', '1003', '1004', '1005', '1006']);
    const big = await get(test, '/api/accounts/x/jack/history?format=csv&limit=5000');
    assert.equal(big.statusCode, 200, 'CSV allows more rows than a JSON page');
    expectProblem(await get(test, '/api/accounts/x/jack/history?format=csv&limit=100001'), 400, 'validation_failed');
    expectProblem(await get(test, '/api/accounts/x/nobody/history?format=csv'), 404, 'account_not_found');
  });
});

describe('GET /api/accounts/:platform/:username/posts', () => {
  it('lists posts newest first with their metrics, and pages through all of them', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\nalice\n');
    const id = await rowId(test, 'jack');
    // Posts 10 and 11 share a timestamp: the post id breaks the tie, so paging never skips one.
    const posts = Array.from({ length: 25 }, (_, i) => post(id, i, BASE + (i === 11 ? 10 : i) * 60_000));
    await insertPosts(test.deps.store.db, test.deps.store.caps, posts, 1000);
    await insertPosts(test.deps.store.db, test.deps.store.caps, [post(await rowId(test, 'alice'), 99, BASE)], 1000);
    const { apiKey } = await test.createKey('app');

    const first = await get(test, '/api/accounts/x/jack/posts', apiKey);
    assert.equal(first.statusCode, 200, first.body);
    const page = first.json();
    assert.equal(page.data.length, 20);
    assert.equal(page.data[0].id, 'p024');
    assert.ok(page.nextCursor);
    const all = (await get(test, '/api/accounts/x/jack/posts?limit=100', apiKey)).json();
    assert.equal(all.data.length, 25, "other accounts' posts are not listed");
    assert.equal(all.nextCursor, null);
    const one = all.data.find((p: { id: string }) => p.id === 'p004');
    assert.deepEqual(one, {
      id: 'p004',
      createdAt: '2026-11-01T00:04:00.000Z',
      text: 'post 4 #tag1',
      url: 'https://x.com/jack/status/4',
      lang: 'en',
      sentiment: 0.5,
      isRepost: false,
      isReply: true,
      metrics: { likes: 40, reposts: 4, replies: 2, quotes: 1 },
      hashtags: ['tag1'],
      mentions: [],
      domains: [],
      metricsObservedAt: '2026-11-01T00:04:01.000Z',
      status: 'live',
      statusSince: null,
      metricsHistory: [],
    });
    assert.equal(all.data.find((p: { id: string }) => p.id === 'p003').isRepost, true);
    assert.deepEqual(all.data.find((p: { id: string }) => p.id === 'p001').mentions, ['alice']);
    assert.deepEqual(all.data.find((p: { id: string }) => p.id === 'p001').domains, ['example.com']);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await get(test, `/api/accounts/x/jack/posts?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(response.statusCode, 200, response.body);
      const body: { data: { id: string; createdAt: string }[]; nextCursor: string | null } = response.json();
      seen.push(...body.data.map((p) => p.id));
      cursor = body.nextCursor;
    } while (cursor !== null);
    assert.equal(seen.length, 25);
    assert.equal(new Set(seen).size, 25);
    const expected = [...posts].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((p) => p.id);
    assert.deepEqual(seen, expected);
    assert.deepEqual(seen.slice(13, 16), ['p011', 'p010', 'p009']);
  });

  it('answers an empty page, 404 for unknown accounts and 400 for bad paging', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    assert.deepEqual((await get(test, '/api/accounts/x/jack/posts')).json(), { data: [], nextCursor: null });
    expectProblem(await get(test, '/api/accounts/x/nobody/posts'), 404, 'account_not_found');
    expectProblem(await get(test, '/api/accounts/x/jack/posts?limit=101'), 400, 'validation_failed');
    expectProblem(await get(test, '/api/accounts/x/jack/posts?limit=0'), 400, 'validation_failed');
    expectProblem(await get(test, '/api/accounts/x/jack/posts?cursor=%21%21'), 400, 'invalid_cursor');
    const historyCursor = Buffer.from(JSON.stringify(['history', 1])).toString('base64url');
    expectProblem(await get(test, `/api/accounts/x/jack/posts?cursor=${historyCursor}`), 400, 'invalid_cursor');
  });
});

describe('POST /api/admin/accounts/:platform/:username/refresh', () => {
  const refresh = (t: TestApp, name: string, extra: { headers?: Record<string, string>; payload?: string } = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/api/admin/accounts/x/${name}/refresh`,
      headers: { ...admin, ...extra.headers },
      ...(extra.payload !== undefined ? { payload: extra.payload } : {}),
    });

  it('makes the account due now, records it in the audit log and wakes the tracker', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    const id = await rowId(test, 'jack');
    await test.deps.store.db
      .updateTable('accounts')
      .set({ next_check_at: test.clock.now() + 5 * HOUR })
      .where('id', '=', id)
      .execute();
    test.clock.advance(90_000);
    const tracker = test.deps.tracker;
    assert.ok(tracker, 'the app runs with a tracker in tests');
    const notify = t.mock.method(tracker, 'notify');

    const response = await refresh(test, 'JACK');
    assert.equal(response.statusCode, 202, response.body);
    const body = response.json();
    assert.equal(body.success, true);
    assert.equal(body.account.username, 'jack');
    assert.equal(body.account.tracking.nextCheckAt, new Date(test.clock.now()).toISOString());
    assert.equal(notify.mock.callCount(), 1);
    const stored = (await get(test, '/api/accounts/x/jack')).json();
    assert.equal(stored.tracking.nextCheckAt, new Date(test.clock.now()).toISOString());

    const audit = (await get(test, '/api/admin/audit')).json().data;
    const entry = audit.find((e: { action: string }) => e.action === 'account.refresh');
    assert.ok(entry, JSON.stringify(audit));
    assert.equal(entry.target, body.account.id);
    assert.equal(entry.actor, 'key_env_admin');
    assert.equal(entry.at, new Date(test.clock.now()).toISOString());
  });

  it('accepts no body, an empty JSON body or {}, and refuses any other body', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    const json = { 'content-type': 'application/json' };
    assert.equal((await refresh(test, 'jack')).statusCode, 202);
    assert.equal((await refresh(test, 'jack', { headers: json, payload: '' })).statusCode, 202);
    assert.equal((await refresh(test, 'jack', { headers: json, payload: '{}' })).statusCode, 202);
    assert.equal((await refresh(test, 'jack', { headers: json, payload: ' { } ' })).statusCode, 202);
    expectProblem(await refresh(test, 'jack', { headers: json, payload: '{"force":true}' }), 400, 'validation_failed');
    expectProblem(await refresh(test, 'jack', { headers: json, payload: '[]' }), 400, 'validation_failed');
    expectProblem(await refresh(test, 'jack', { headers: json, payload: 'null' }), 400, 'validation_failed');
    expectProblem(await refresh(test, 'jack', { headers: json, payload: '{' }), 400, 'invalid_json');
    expectProblem(
      await refresh(test, 'jack', { headers: json, payload: '{"__proto__":{"x":1}}' }),
      400,
      'invalid_json',
    );
    // Every JSON route refuses another content type, text/plain included.
    expectProblem(
      await refresh(test, 'jack', { headers: { 'content-type': 'text/plain' }, payload: 'now please' }),
      415,
      'unsupported_media_type',
    );
    expectProblem(
      await refresh(test, 'jack', { headers: { 'content-type': 'application/xml' }, payload: '<a/>' }),
      415,
      'unsupported_media_type',
    );
  });

  it('refuses a paused account with 409, unknown ones with 404, and callers without the admin role', async (t) => {
    const test = await build(t);
    await insert(test, 'jack\n');
    const paused = await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/jack',
      headers: admin,
      payload: { paused: true },
    });
    assert.equal(paused.statusCode, 200, paused.body);
    const conflict = await refresh(test, 'jack');
    expectProblem(conflict, 409, 'account_paused');
    assert.match(conflict.json().detail, /PATCH/);
    const auditActions = (await get(test, '/api/admin/audit')).json().data.map((e: { action: string }) => e.action);
    assert.ok(!auditActions.includes('account.refresh'), 'nothing is recorded for a refused refresh');
    assert.equal(
      (await get(test, '/api/accounts/x/jack')).json().tracking.nextCheckAt,
      null,
      'a paused account stays unscheduled',
    );

    expectProblem(await refresh(test, 'nobody'), 404, 'account_not_found');
    expectProblem(await refresh(test, 'bad%20name'), 400, 'invalid_username');
    await test.app.inject({ method: 'DELETE', url: '/api/admin/accounts/x/jack', headers: admin });
    expectProblem(await refresh(test, 'jack'), 404, 'account_not_found', 'untracked');

    await insert(test, 'bob\n');
    const { apiKey } = await test.createKey('app');
    expectProblem(await refresh(test, 'bob', { headers: { 'x-api-key': apiKey } }), 403, 'forbidden');
    const anonymous = await test.app.inject({ method: 'POST', url: '/api/admin/accounts/x/bob/refresh' });
    expectProblem(anonymous, 401, 'missing_api_key');
    const wrongMethod = await test.app.inject({
      method: 'GET',
      url: '/api/admin/accounts/x/bob/refresh',
      headers: admin,
    });
    expectProblem(wrongMethod, 405, 'method_not_allowed');
  });
});
