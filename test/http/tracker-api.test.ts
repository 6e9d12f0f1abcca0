// The tracker as API users see it: GET /api/ returns living details after a check, health reports
// the tracker (and warns when X accounts have no credentials), /metrics counts the work.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const admin = { 'x-api-key': ADMIN_KEY };

test('an imported account becomes active with metrics and analysis through GET /api/, and /metrics counts it', async (t) => {
  const x = await startFakeX();
  const bsky = await startFakeBluesky();
  t.after(async () => {
    await x.close();
    await bsky.close();
  });
  const jack = x.addUser({ username: 'jack', followers: 321 });
  // Before the test clock's now (2026-11-23T12:00Z), so the analysis window holds it.
  x.addPost(jack.id, { text: 'hello #perch', hashtags: ['perch'], likes: 4, createdAt: '2026-11-23T11:00:00.000Z' });
  bsky.addUser({ handle: 'alice.bsky.social', followers: 12 });
  const api = await build(t, {}, { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url, BLUESKY_API_BASE_URL: bsky.url });
  const insert = await api.admin('POST', '/api/admin/insert', { file: 'username\njack\nalice.bsky.social\n' });
  assert.equal(insert.statusCode, 200);
  const before = await api.app.inject({ method: 'GET', url: '/api/?username=jack', headers: admin });
  assert.equal(before.json().status, 'pending');

  await api.tracker?.tick();
  const after = (await api.app.inject({ method: 'GET', url: '/api/?username=jack', headers: admin })).json();
  assert.equal(after.status, 'active');
  assert.equal(after.metrics.followers, 321);
  assert.deepEqual(after.analysis.content.topHashtags, [{ tag: 'perch', count: 1 }]);
  assert.equal(after.analysis.stale, false);
  // The response schema lets the whole stored analysis through, field for field.
  const stored = await api.deps.store.db
    .selectFrom('accounts')
    .select('analysis')
    .where('username_key', '=', 'jack')
    .executeTakeFirstOrThrow();
  assert.deepEqual(after.analysis, JSON.parse(stored.analysis ?? 'null'));
  const posts = (await api.app.inject({ method: 'GET', url: '/api/accounts/x/jack/posts', headers: admin })).json();
  assert.equal(posts.data[0].text.startsWith('hello'), true);
  const history = (await api.app.inject({ method: 'GET', url: '/api/accounts/x/jack/history', headers: admin })).json();
  assert.equal(history.data[0].followers, 321);

  const health = await api.app.inject({ method: 'GET', url: '/api/health' });
  assert.equal(health.statusCode, 200);
  const tracker = health.json().checks.tracker;
  assert.equal(tracker.status, 'pass');
  assert.equal(tracker.enabled, true);
  assert.equal(tracker.due, 0);
  assert.ok(tracker.lastTickAt);

  const metrics = (await api.app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.match(metrics, /perch_platform_requests_total\{platform="x",endpoint="lookup_by_name",outcome="ok"\} 1/);
  assert.match(metrics, /perch_platform_requests_total\{platform="bluesky",endpoint="lookup_by_name",outcome="ok"\} 1/);
  assert.match(metrics, /perch_accounts\{platform="x",status="active"\} 1/);
  assert.match(metrics, /perch_account_checks_total\{platform="bluesky",result="found"\} 1/);
  assert.match(metrics, /perch_tracker_batch_duration_seconds_count\{platform="x"\} 1/);

  // Stale is decided when the record is read: twice the interval without a check.
  api.clock.advance(2 * 3_600_000 + 1);
  assert.equal(
    (await api.app.inject({ method: 'GET', url: '/api/accounts/x/jack', headers: admin })).json().analysis.stale,
    true,
  );
});

test('health warns when X accounts are tracked without X_BEARER_TOKEN, and says nothing secret', async (t) => {
  const api = await build(t);
  const healthy = (await api.app.inject({ method: 'GET', url: '/api/health' })).json();
  assert.equal(healthy.status, 'pass');
  await api.admin('POST', '/api/admin/insert', { file: 'username\njack\n' });
  // Health reuses its store counts for 5 s (probes come often; counting a million rows does not).
  assert.equal((await api.app.inject({ method: 'GET', url: '/api/health' })).json().status, 'pass');
  api.clock.advance(5_000);
  const response = await api.app.inject({ method: 'GET', url: '/api/health' });
  assert.equal(response.statusCode, 200);
  const body = response.json();
  assert.equal(body.status, 'warn');
  assert.equal(body.checks.tracker.status, 'warn');
  assert.match(body.checks.tracker.notes.join(' '), /X_BEARER_TOKEN/);
  assert.equal(body.checks.tracker.platforms.x.configured, false);
  assert.equal(body.checks.tracker.platforms.x.due, 1);
  assert.doesNotMatch(response.body, /secret|\/tmp\/|postgres:\/\//i);
});

test('the tracker is off in `perch api` (TRACKER=off): health says so and refresh still marks the account due', async (t) => {
  const api = await build(t, { tracker: false });
  await api.admin('POST', '/api/admin/insert', { file: 'username\njack\n' });
  const health = (await api.app.inject({ method: 'GET', url: '/api/health' })).json();
  assert.equal(health.checks.tracker.enabled, false);
  const refresh = await api.app.inject({ method: 'POST', url: '/api/admin/accounts/x/jack/refresh', headers: admin });
  assert.equal(refresh.statusCode, 202);
});
