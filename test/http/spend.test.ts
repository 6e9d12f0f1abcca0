// What X costs, as a user sees it: the usage report (JSON and CSV), spend and budgets in health and
// the metrics, and the estimate an import's answer carries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordSpend } from '../../src/storage/spend-repo.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY };

const METRICS_KEY = 'metrics-key-0123456789abcdefghijklmnopqrstuvwxyz';

async function seedLedger(t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const a = await build(t, {}, { X_DAILY_BUDGET_USD: '2', X_MONTHLY_BUDGET_USD: '40', ...env });
  const db = a.deps.store.db;
  // The clock is 2026-11-23 12:00 UTC.
  await recordSpend(db, { platform: 'x', day: '2026-11-22', kind: 'users', resources: 100, micros: 1_000_000 });
  await recordSpend(db, { platform: 'x', day: '2026-11-23', kind: 'users', resources: 50, micros: 500_000 });
  await recordSpend(db, { platform: 'x', day: '2026-11-23', kind: 'posts', resources: 20, micros: 100_000 });
  await recordSpend(db, { platform: 'bluesky', day: '2026-11-23', kind: 'users', resources: 25, micros: 0 });
  await recordSpend(db, { platform: 'x', day: '2026-10-31', kind: 'users', resources: 7, micros: 70_000 });
  return a;
}

test('GET /api/admin/usage: the ledger per day, platform and kind, as JSON and as CSV; bad ranges are 400', async (t) => {
  const { app } = await seedLedger(t);
  const json = await app.inject({ url: '/api/admin/usage?from=2026-11-01&to=2026-11-23', headers: admin });
  assert.equal(json.statusCode, 200, json.body);
  const body = json.json();
  assert.deepEqual(body.rateCard, { userUsd: 0.01, postUsd: 0.005 });
  assert.deepEqual(
    body.days.map((d: { day: string; platform: string; kind: string; resources: number; usd: number }) => [
      d.day,
      d.platform,
      d.kind,
      d.resources,
      d.usd,
    ]),
    [
      ['2026-11-22', 'x', 'users', 100, 1],
      ['2026-11-23', 'bluesky', 'users', 25, 0],
      ['2026-11-23', 'x', 'posts', 20, 0.1],
      ['2026-11-23', 'x', 'users', 50, 0.5],
    ],
  );
  assert.equal(body.totalUsd, 1.6);

  const csv = await app.inject({ url: '/api/admin/usage?platform=x', headers: { ...admin, accept: 'text/csv' } });
  assert.equal(csv.statusCode, 200);
  assert.match(String(csv.headers['content-type']), /^text\/csv/);
  assert.match(
    String(csv.headers['content-disposition']),
    /attachment; filename="perch-usage-2026-10-25-to-2026-11-23\.csv"/,
  );
  assert.equal(
    csv.body,
    'day,platform,kind,resources,usd\n2026-10-31,x,users,7,0.07\n2026-11-22,x,users,100,1\n2026-11-23,x,posts,20,0.1\n2026-11-23,x,users,50,0.5\n',
  );

  for (const [query, status] of [
    ['from=2026-11-31', 400],
    ['from=yesterday', 400],
    ['from=2026-11-23&to=2026-11-01', 400],
    ['from=2024-01-01&to=2026-11-01', 400],
    ['platform=myspace', 400],
  ] as const) {
    const bad = await app.inject({ url: `/api/admin/usage?${query}`, headers: admin });
    assert.equal(bad.statusCode, status, `${query}: ${bad.body}`);
    assert.match(String(bad.headers['content-type']), /problem\+json/);
  }
  const app_ = await app.inject({ url: '/api/admin/usage' });
  assert.equal(app_.statusCode, 401);
});

test("health says each X budget's state and no dollar figure (it is public); metrics show the spend behind a key", async (t) => {
  const { app } = await seedLedger(t, { METRICS_KEY });
  const response = await app.inject({ url: '/api/health' });
  const spend = response.json().checks.spend;
  assert.equal(spend.status, 'pass');
  assert.equal(spend.x, undefined);
  assert.deepEqual(
    spend.budgets.find((b: { name: string }) => b.name === 'daily dollar budget'),
    { name: 'daily dollar budget', period: 'day', state: 'available' },
  );
  assert.ok(spend.budgets.some((b: { name: string }) => b.name === 'monthly post-read cap'));
  // Nothing of the ledger's money: $0.60 today, $1.60 this month, the $40 and $2 budgets.
  assert.doesNotMatch(JSON.stringify(spend), /usd|0\.6|1\.6|\b40\b|"limit"|"used"|"remaining"/i);

  const metrics = (await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_KEY}` } })).body;
  assert.match(metrics, /perch_x_spend_usd\{period="day"\} 0\.6/);
  assert.match(metrics, /perch_x_spend_usd\{period="month"\} 1\.6/);
  assert.match(metrics, /perch_x_resources\{kind="users",period="month"\} 150/);
  assert.match(metrics, /perch_x_budget_limit\{budget="monthly dollar budget",unit="usd",period="month"\} 40/);
  assert.match(metrics, /perch_x_spend_projected_month_usd \d/);
});

test('public metrics carry no dollar figure and no budget', async (t) => {
  const { app } = await seedLedger(t);
  const metrics = await app.inject({ url: '/metrics' });
  assert.equal(metrics.statusCode, 200);
  assert.match(metrics.body, /perch_accounts/);
  assert.doesNotMatch(metrics.body, /perch_x_spend|perch_x_budget|perch_x_resources/);
});

test('the insert answer estimates what tracking the added accounts costs per day and month, and once for first reads', async (t) => {
  const { app } = await build(t, {}, { TRACK_INTERVAL: '1h' });
  const names = Array.from({ length: 1000 }, (_, i) => `costly${i}`);
  const res = await app.inject({
    method: 'POST',
    url: '/api/admin/insert',
    headers: { ...admin, 'content-type': 'text/csv' },
    payload: `username\n${names.join('\n')}\n`,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().estimate, {
    rateCard: { userUsd: 0.01, postUsd: 0.005 },
    platforms: [{ platform: 'x', accounts: 1000, perDayUsd: 10, perMonthUsd: 300, firstReadUsd: 500 }],
  });
  // The same names again add nothing, so they cost nothing more.
  const again = await app.inject({
    method: 'POST',
    url: '/api/admin/insert',
    headers: { ...admin, 'content-type': 'text/csv' },
    payload: `username\n${names.join('\n')}\n`,
  });
  assert.deepEqual(again.json().estimate.platforms, []);
  // Bluesky is free.
  const bsky = await app.inject({
    method: 'POST',
    url: '/api/admin/insert',
    headers: { ...admin, 'content-type': 'text/csv' },
    payload: 'username,platform\nalice.bsky.social,bluesky\n',
  });
  assert.deepEqual(bsky.json().estimate.platforms, [
    { platform: 'bluesky', accounts: 1, perDayUsd: 0, perMonthUsd: 0, firstReadUsd: 0 },
  ]);
});

test("the dashboard's Overview shows X's spend to administrators only", async (t) => {
  const test_ = await seedLedger(t);
  const { apiKey } = await test_.createKey('app');
  const overviewAs = async (key: string) => {
    const signIn = await test_.app.inject({
      method: 'POST',
      url: '/ui/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ apiKey: key }).toString(),
    });
    const cookie = String(signIn.headers['set-cookie'] ?? '').split(';')[0] ?? '';
    const page = await test_.app.inject({ url: '/ui/', headers: { cookie } });
    assert.equal(page.statusCode, 200, page.body);
    return page.body;
  };
  const forAdmin = await overviewAs(ADMIN_KEY);
  assert.match(forAdmin, /id="spend"/);
  assert.match(forAdmin, /\$0\.6/);
  const forApp = await overviewAs(apiKey);
  assert.doesNotMatch(forApp, /id="spend"|\$\d/);
  assert.match(forApp, /shown to administrators/);
});
