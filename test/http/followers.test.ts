// Follower lists through the API over real HTTP, against the local platforms: who follows, who
// followed and who left (JSON pages and CSV), the event, switching a list on with its cost on X,
// the refusal above FOLLOWER_LIST_MAX, and bad queries answered 400 without a change.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const DAY = 86_400_000;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked field by field
type Json = any;
const admin = { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' };

async function world(t: TestContext, env: Record<string, string> = {}) {
  const x = await startFakeX();
  const bsky = await startFakeBluesky();
  t.after(async () => {
    await x.close();
    await bsky.close();
  });
  const api = await build(
    t,
    {},
    { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url, BLUESKY_API_BASE_URL: bsky.url, ...env },
  );
  const base = await api.app.listen({ port: 0, host: '127.0.0.1' });
  const get = (path: string) => fetch(`${base}${path}`, { headers: admin });
  const send = (method: string, path: string, body: unknown) =>
    fetch(`${base}${path}`, { method, headers: admin, body: JSON.stringify(body) });
  const insert = (file: string) => send('POST', '/api/admin/insert', { file });
  const json = async (path: string): Promise<Json> => (await get(path)).json();
  return { x, bsky, api, get, json, send, insert };
}

describe('follower lists in the API', () => {
  it('Bluesky: current, gained and lost followers in JSON and CSV, and one event', async (t: TestContext) => {
    const w = await world(t);
    const ada = w.bsky.addUser({ handle: 'ada.bsky.social' });
    const fans = w.bsky.addFollowers(ada.did, 120, 'fan');
    assert.equal((await w.insert('platform,username\nbluesky,ada.bsky.social\n')).status, 200);
    await w.api.tracker!.tick();
    await w.api.tracker!.followerRound();

    const first = await w.json('/api/accounts/bluesky/ada.bsky.social/followers');
    assert.equal(first.data.length, 100);
    assert.ok(first.nextCursor);
    const second = await w.json(`/api/accounts/bluesky/ada.bsky.social/followers?cursor=${first.nextCursor}`);
    assert.equal(second.data.length, 20);
    assert.equal(second.nextCursor, null);
    const ids = new Set([...first.data, ...second.data].map((f: { platformUserId: string }) => f.platformUserId));
    assert.deepEqual(ids, new Set(fans.map((f) => f.did)));
    assert.equal(first.data[0].gainedAt, null, 'the first pass is the baseline');
    assert.deepEqual((await w.json('/api/accounts/bluesky/ada.bsky.social/followers?state=gained')).data, []);

    w.bsky.unfollow(fans[5]!.did, ada.did);
    w.bsky.unfollow(fans[80]!.did, ada.did);
    const [late] = w.bsky.addFollowers(ada.did, 1, 'late');
    w.api.clock.advance(DAY);
    const since = new Date(w.api.clock.now() - 60_000).toISOString();
    assert.deepEqual(await w.api.tracker!.followerRound(), { finished: 1 });

    const gained = await w.json(`/api/accounts/bluesky/ada.bsky.social/followers?state=gained&since=${since}`);
    assert.deepEqual(gained.data, [
      {
        platformUserId: late!.did,
        username: 'late0.bsky.social',
        url: 'https://bsky.app/profile/late0.bsky.social',
        firstSeenAt: new Date(w.api.clock.now()).toISOString(),
        gainedAt: new Date(w.api.clock.now()).toISOString(),
        goneAt: null,
      },
    ]);
    const lost = await w.json('/api/accounts/bluesky/ada.bsky.social/followers?state=lost&limit=1');
    assert.equal(lost.data.length, 1);
    const lostRest = await w.json(
      `/api/accounts/bluesky/ada.bsky.social/followers?state=lost&limit=1&cursor=${lost.nextCursor}`,
    );
    assert.deepEqual([...lost.data, ...lostRest.data].map((f: { username: string }) => f.username).sort(), [
      'fan5.bsky.social',
      'fan80.bsky.social',
    ]);
    assert.equal(lostRest.nextCursor, null);
    const later = new Date(w.api.clock.now() + 1).toISOString();
    assert.deepEqual(
      (await w.json(`/api/accounts/bluesky/ada.bsky.social/followers?state=lost&since=${later}`)).data,
      [],
    );

    const csv = await w.get('/api/accounts/bluesky/ada.bsky.social/followers?state=lost&format=csv');
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(csv.headers.get('content-disposition') ?? '', /bluesky-ada\.bsky\.social-followers-lost\.csv/);
    const lines = (await csv.text()).split('\r\n').filter((l) => l !== '');
    assert.equal(lines[0], 'platform_user_id,username,url,first_seen_at,gained_at,gone_at');
    assert.equal(lines.length, 3);
    assert.ok(lines.slice(1).every((l) => l.includes('https://bsky.app/profile/fan')));

    const events = await w.json('/api/events?type=account.followers_changed');
    assert.equal(events.data.length, 1);
    assert.equal(events.data[0].data.gainedCount, 1);
    assert.equal(events.data[0].data.lostCount, 2);
    assert.deepEqual(events.data[0].data.gained, [{ platformUserId: late!.did, username: 'late0.bsky.social' }]);
  });

  it('X: switching the list on states the cost of a pass; above the limit it is refused, naming it', async (t: TestContext) => {
    const w = await world(t, { FOLLOWER_LIST_MAX: '5000' });
    const jack = w.x.addUser({ username: 'jack' });
    w.x.addFollowers(jack.id, 2_500, 'fan');
    const big = w.x.addUser({ username: 'big', followers: 9_000 });
    void big;
    await w.insert('username\njack\nbig\n');
    await w.api.tracker!.tick();

    const on = await w.send('PATCH', '/api/admin/accounts/x/jack', { followerList: true });
    assert.equal(on.status, 200);
    const body = (await on.json()) as Json;
    assert.equal(body.username, 'jack');
    assert.deepEqual(body.followerList.passCost, { followers: 2_500, pages: 3, usd: 25, perMonthUsd: 750 });
    assert.equal(body.followerList.enabled, true);
    assert.equal(body.followerList.by, 'account');
    const plain = (await (await w.send('PATCH', '/api/admin/accounts/x/jack', { note: 'hi' })).json()) as Json;
    assert.equal(plain.followerList, undefined);

    const refused = await w.send('PATCH', '/api/admin/accounts/x/big', { followerList: true, note: 'not this' });
    assert.equal(refused.status, 409);
    const problem = (await refused.json()) as Json;
    assert.equal(problem.code, 'follower_list_too_large');
    assert.match(problem.detail, /5,000/);
    assert.match(problem.detail, /FOLLOWER_LIST_MAX/);
    const after = await w.json('/api/accounts/x/big');
    assert.equal(after.note, null, 'a refused change changes nothing');

    const bad = await w.send('PATCH', '/api/admin/accounts/x/jack', { followerList: 'yes' });
    assert.equal(bad.status, 400);

    await w.api.tracker!.followerRound();
    const current = await w.json('/api/accounts/x/jack/followers?limit=1000');
    assert.equal(current.data.length, 1_000);
    assert.equal(current.data[0].url.startsWith('https://x.com/fan'), true);
    const off = (await (await w.send('PATCH', '/api/admin/accounts/x/jack', { followerList: false })).json()) as Json;
    assert.equal(off.followerList.enabled, false);
  });

  it('the account page shows new followers and unfollows with links, and the cost on X before switching it on', async (t: TestContext) => {
    const w = await world(t);
    const ada = w.bsky.addUser({ handle: 'ada.bsky.social' });
    const [gone] = w.bsky.addFollowers(ada.did, 3, 'fan');
    const jack = w.x.addUser({ username: 'jack' });
    w.x.addFollowers(jack.id, 1_500, 'xfan');
    await w.insert('platform,username\nbluesky,ada.bsky.social\nx,jack\n');
    await w.api.tracker!.tick();
    await w.api.tracker!.followerRound();
    w.bsky.unfollow(gone!.did, ada.did);
    w.bsky.addFollowers(ada.did, 1, 'late');
    w.api.clock.advance(DAY);
    await w.api.tracker!.followerRound();

    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const signIn = await w.api.app.inject({
      method: 'POST',
      url: '/ui/sign-in',
      headers: form,
      payload: new URLSearchParams({ apiKey: ADMIN_KEY }).toString(),
    });
    const cookie = String(signIn.headers['set-cookie'] ?? '').split(';')[0] ?? '';
    const page = (url: string) => w.api.app.inject({ method: 'GET', url, headers: { cookie } });
    const bsky = (await page('/ui/accounts/bluesky/ada.bsky.social')).body;
    assert.match(
      bsky,
      /<h3>New followers<\/h3>\s*<ul class="followers">\s*<li><a href="https:\/\/bsky.app\/profile\/late0.bsky.social"[^>]*>late0.bsky.social<\/a> <time datetime="2026-11-24T12:00:00.000Z">/,
    );
    assert.match(
      bsky,
      /<h3>Unfollowed<\/h3>\s*<ul class="followers">\s*<li><a href="https:\/\/bsky.app\/profile\/fan0.bsky.social"/,
    );

    const x = await page('/ui/accounts/x/jack');
    assert.match(x.body, /Not kept\. One pass reads 2 pages \(1,500 followers\) and costs \$15\.00 on X/);
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(x.body)?.[1] ?? '';
    const on = await w.api.app.inject({
      method: 'POST',
      url: '/ui/accounts/x/jack/follower-list',
      headers: { ...form, cookie },
      payload: new URLSearchParams({ _csrf: csrf, on: '1' }).toString(),
    });
    assert.equal(on.statusCode, 303);
    assert.match((await page(String(on.headers.location))).body, /The follower list is kept from now on/);
    assert.deepEqual(await w.api.tracker!.followerRound(), { finished: 1 });
  });

  it('bad queries are 400 naming the field', async (t: TestContext) => {
    const w = await world(t);
    w.x.addUser({ username: 'jack' });
    await w.insert('username\njack\n');
    for (const [query, field] of [
      ['state=bogus', 'querystring/state'],
      ['since=2026-11-01T00:00:00Z', 'querystring/since'],
      ['state=gained&since=yesterday', 'querystring/since'],
      ['limit=5000', 'querystring/limit'],
      ['limit=0', 'querystring/limit'],
    ] as const) {
      const res = await w.get(`/api/accounts/x/jack/followers?${query}`);
      assert.equal(res.status, 400, query);
      const problem = (await res.json()) as Json;
      assert.ok(
        JSON.stringify(problem.errors ?? []).includes(field.split('/')[1]!),
        `${query}: ${JSON.stringify(problem)}`,
      );
    }
    assert.equal((await w.get('/api/accounts/x/jack/followers?cursor=nonsense')).status, 400);
    assert.equal((await w.get('/api/accounts/x/nobody/followers')).status, 404);
  });
});
