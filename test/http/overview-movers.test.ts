// The Overview's top movers and followers-over-time chart, over HTTP against the local X, on every
// store: gainers and losers over 24 hours and 7 days with their % growth, and the total followers of
// all tracked accounts and of a tag, kept by the checks, the tag edits and the untracking.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { sql } from 'kysely';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const admin = { 'x-api-key': ADMIN_KEY };
const DAY_MS = 86_400_000;

async function overviewResponse(test: TestApp, query: string) {
  const signIn = await test.app.inject({
    method: 'POST',
    url: '/ui/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ apiKey: ADMIN_KEY }).toString(),
  });
  const cookie = String(signIn.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  return test.app.inject({ method: 'GET', url: `/ui/${query}`, headers: { cookie } });
}

async function overview(test: TestApp, query = ''): Promise<string> {
  const page = await overviewResponse(test, query);
  assert.equal(page.statusCode, 200, page.body);
  return page.body;
}

/** The sentences of one mover list, tags stripped. */
function moverLines(body: string, id: string): string[] {
  const list = new RegExp(`<div class="mover-list" id="${id}">([\\s\\S]*?)</div>`).exec(body)?.[1] ?? '';
  return [...list.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) =>
    m[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** The chart's series as the page sends it to the browser. */
function chartData(body: string): { series: { label: string; values: number[]; times: number[] }[] } {
  const json = /<script type="application\/json" id="totals-chart-data">([\s\S]*?)<\/script>/.exec(body)?.[1];
  assert.ok(json, 'the page carries the chart data');
  return JSON.parse(json) as { series: { label: string; values: number[]; times: number[] }[] };
}

async function totals(test: TestApp, tag: string): Promise<{ day: string; total: number }[]> {
  const rows = await test.deps.store.db
    .selectFrom('follower_totals')
    .select(['day', 'total'])
    .where('tag', '=', tag)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({ day: r.day, total: Number(r.total) }));
}

describe('the Overview: top movers and followers over time', () => {
  it('ranks gainers and losers over 24 h and 7 d, and keeps the totals of all accounts and of a tag', async (t) => {
    const x = await startFakeX();
    t.after(() => x.close());
    const ada = x.addUser({ username: 'ada', followers: 100 });
    const bob = x.addUser({ username: 'bob', followers: 200 });
    const cy = x.addUser({ username: 'cy', followers: 50 });
    x.addUser({ username: 'dee', followers: 80 });
    const test = await build(t, {}, { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url, TRACK_INTERVAL: '1h' });
    const file = 'username,tags\nada,team\nbob,\ncy,team\ndee,team\n';
    const imported = await test.admin('POST', '/api/admin/insert', { file });
    assert.equal(imported.statusCode, 200, imported.body);
    await test.tracker?.tick();
    const today = new Date(test.clock.now()).toISOString().slice(0, 10);
    assert.deepEqual(await totals(test, ''), [{ day: today, total: 430 }]);
    assert.deepEqual(await totals(test, 'team'), [{ day: today, total: 230 }]);

    // A day later: ada gains 25 (+25%), bob loses 20 (−10%), cy gains 5.
    test.clock.advance(DAY_MS + 60_000);
    x.updateUser(ada.id, { followers: 125 });
    x.updateUser(bob.id, { followers: 180 });
    x.updateUser(cy.id, { followers: 55 });
    await test.tracker?.tick();
    const next = new Date(test.clock.now()).toISOString().slice(0, 10);
    assert.deepEqual(await totals(test, ''), [
      { day: today, total: 430 },
      { day: next, total: 440 },
    ]);
    assert.deepEqual((await totals(test, 'team')).at(-1), { day: next, total: 260 });

    const body = await overview(test);
    assert.deepEqual(moverLines(body, 'movers-1d-up'), [
      '@ada gained 25 followers in 24 hours (+25%)',
      '@cy gained 5 followers in 24 hours (+10%)',
    ]);
    assert.deepEqual(moverLines(body, 'movers-1d-down'), ['@bob lost 20 followers in 24 hours (−10%)']);
    assert.match(body, /<a href="\/ui\/accounts\/x\/ada">@ada<\/a>/);
    // Checked over a single day: no 7-day change is known yet, and the page says so.
    assert.deepEqual(moverLines(body, 'movers-7d-up'), []);
    assert.match(body, /No account gained followers over the last 7 days yet/);
    const all = chartData(body).series[0]!;
    assert.deepEqual(all.values.slice(0, 2), [430, 440]);
    assert.equal(all.times.at(-1), Math.floor(test.clock.now() / 1000), 'the line runs to now');
    assert.match(body, /Total followers of all tracked accounts over the last 30 days, 440 now/);

    const team = chartData(await overview(test, '?tag=team&range=7d')).series[0]!;
    assert.deepEqual(team.values.slice(0, 2), [230, 260]);
    assert.ok(team.times[0]! >= Math.floor((test.clock.now() - 7 * DAY_MS) / 1000), 'inside the 7-day window');

    // Untracking takes an account's followers out of every total; a tag edit moves them between tags.
    const stopped = await test.app.inject({ method: 'DELETE', url: '/api/admin/accounts/x/bob', headers: admin });
    assert.equal(stopped.statusCode, 200, stopped.body);
    const retagged = await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/dee',
      headers: admin,
      payload: { tags: ['press'] },
    });
    assert.equal(retagged.statusCode, 200, retagged.body);
    assert.equal((await totals(test, '')).at(-1)!.total, 260);
    assert.equal((await totals(test, 'team')).at(-1)!.total, 180);
    assert.equal((await totals(test, 'press')).at(-1)!.total, 80);
    // The kept totals equal what the accounts hold now.
    const held = await sql<{
      n: number | string | null;
    }>`select sum(followers) as n from accounts where untracked_at is null`.execute(test.deps.store.db);
    assert.equal(Number(held.rows[0]!.n), 260);
    assert.match(await overview(test), /<option value="press">Tag press<\/option>/);
  });

  it('refuses an unknown range with a problem, not a page', async (t) => {
    const test = await build(t);
    const page = await overviewResponse(test, '?range=1y');
    assert.equal(page.statusCode, 400, page.body);
    assert.match(page.body, /range/);
  });
});
