// The alert rule routes: bad rules get one 400 naming every bad field and change nothing (nor
// does a bad change), admin only, unknown ids 404, and a rule's life from creation through a real
// check that fires it (its page lists when) to its deletion.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';

const admin = { 'x-api-key': ADMIN_KEY };

async function world(t: TestContext) {
  const x = await startFakeX();
  t.after(() => x.close());
  const api = await build(t, {}, { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url });
  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    const response = await api.app.inject({
      method,
      url,
      headers: admin,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json() };
  };
  return { x, api, call };
}

const good = { name: 'Big', metric: 'followers', condition: { above: 1_000 } };

test('bad rules and bad changes are a 400 naming each field, and change nothing', async (t) => {
  const { api, call } = await world(t);
  const cases: [unknown, string[]][] = [
    [{ ...good, metric: 'likes' }, ['body/metric']],
    [{ ...good, condition: { changePercent: 10, windowHours: 0 } }, ['body/condition/windowHours']],
    [{ ...good, condition: { anomaly: { sensitivity: 0 } } }, ['body/condition/anomaly/sensitivity']],
    [{ ...good, condition: { quietDays: -1 } }, ['body/condition/quietDays']],
    [{ ...good, recipients: ['ada@example.com', 'ada at example'] }, ['body/recipients/1']],
    [{ ...good, scope: { accounts: ['acc_999'] } }, ['body/scope/accounts/0']],
    [{ ...good, cooldown: '0m' }, ['body/cooldown']],
  ];
  for (const [body, fields] of cases) {
    const response = await call('POST', '/api/admin/alerts', body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(response.body.code, 'validation_failed');
    assert.deepEqual(
      response.body.errors.map((e: { field: string }) => e.field),
      fields,
      JSON.stringify(body),
    );
  }
  // The type checks of the schema are 400s too.
  assert.equal((await call('POST', '/api/admin/alerts', { ...good, name: 42 })).status, 400);
  assert.equal((await call('POST', '/api/admin/alerts', { metric: 'followers' })).status, 400);
  assert.deepEqual((await call('GET', '/api/admin/alerts')).body.data, []);

  const created = await call('POST', '/api/admin/alerts', good);
  assert.equal(created.status, 201);
  const before = (await call('GET', `/api/admin/alerts/${created.body.id}`)).body;
  const bad = await call('PATCH', `/api/admin/alerts/${created.body.id}`, {
    metric: 'engagementRate',
    condition: { changePercent: 5, windowHours: 1 },
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(
    bad.body.errors.map((e: { field: string }) => e.field),
    ['body/condition'],
  );
  assert.deepEqual((await call('GET', `/api/admin/alerts/${created.body.id}`)).body, before);
  const audit = await api.deps.store.db
    .selectFrom('audit_log')
    .select('action')
    .where('action', 'like', 'alert.%')
    .execute();
  assert.deepEqual(
    audit.map((a) => a.action),
    ['alert.create'],
  );
});

test('admin only; unknown ids are 404', async (t) => {
  const { api, call } = await world(t);
  const key = await api.createKey('app');
  const asApp = await api.app.inject({
    method: 'POST',
    url: '/api/admin/alerts',
    headers: { 'x-api-key': key.apiKey },
    payload: good,
  });
  assert.equal(asApp.statusCode, 403);
  assert.equal((await api.app.inject({ method: 'GET', url: '/api/admin/alerts' })).statusCode, 401);
  for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
    const response = await call(method, '/api/admin/alerts/alr_nope', method === 'PATCH' ? { name: 'x' } : undefined);
    assert.equal(response.status, 404, method);
    assert.equal(response.body.code, 'alert_not_found');
  }
});

test('a rule is created, fires at a check, shows when it fired, is changed and deleted', async (t) => {
  const { x, api, call } = await world(t);
  x.addUser({ username: 'ann', followers: 2_000 });
  const insert = await api.admin('POST', '/api/admin/insert', { file: 'username,tags\nann,news\n' });
  assert.equal(insert.statusCode, 200, insert.body);
  const ann = (await api.app.inject({ method: 'GET', url: '/api/accounts/x/ann', headers: admin })).json();
  const created = await call('POST', '/api/admin/alerts', {
    ...good,
    scope: { tags: ['news'], accounts: [ann.id] },
    cooldown: '2h',
    recipients: ['desk@example.com'],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.match(created.body.id, /^alr_[a-z0-9]{20}$/);
  assert.deepEqual(
    { ...created.body, id: 'x', createdAt: 'x', updatedAt: 'x' },
    {
      id: 'x',
      name: 'Big',
      scope: { tags: ['news'], accounts: [ann.id] },
      metric: 'followers',
      condition: { above: 1_000 },
      cooldown: '2h',
      recipients: ['desk@example.com'],
      enabled: true,
      createdAt: 'x',
      updatedAt: 'x',
    },
  );
  await api.tracker?.tick();
  const read = await call('GET', `/api/admin/alerts/${created.body.id}`);
  assert.equal(read.status, 200);
  assert.deepEqual(
    read.body.firings.map((f: { account: { username: string }; count: number; value: number }) => [
      f.account.username,
      f.count,
      f.value,
    ]),
    [['ann', 1, 2_000]],
  );
  const events = (
    await api.app.inject({ method: 'GET', url: '/api/events?type=alert.triggered', headers: admin })
  ).json();
  assert.equal(events.data.length, 1);
  assert.equal(events.data[0].data.rule.id, created.body.id);

  const changed = await call('PATCH', `/api/admin/alerts/${created.body.id}`, {
    condition: { anomaly: { sensitivity: 4 } },
    enabled: false,
  });
  assert.equal(changed.status, 200);
  assert.deepEqual(changed.body.condition, { anomaly: { sensitivity: 4 } });
  assert.equal(changed.body.enabled, false);
  assert.equal(changed.body.name, 'Big');
  assert.equal((await call('GET', '/api/admin/alerts')).body.data.length, 1);
  assert.equal((await call('DELETE', `/api/admin/alerts/${created.body.id}`)).status, 200);
  assert.equal((await call('GET', `/api/admin/alerts/${created.body.id}`)).status, 404);
  assert.deepEqual((await call('GET', '/api/admin/alerts')).body.data, []);
});

test('a rule whose stored fields cannot be read is listed with what to send, and a change that sends them repairs it', async (t) => {
  const { api, call } = await world(t);
  const broken = (await call('POST', '/api/admin/alerts', good)).body.id as string;
  const shaped = (await call('POST', '/api/admin/alerts', { ...good, name: 'Shaped' })).body.id as string;
  const fine = (await call('POST', '/api/admin/alerts', { ...good, name: 'Fine' })).body.id as string;
  // Hand edits of the store: a condition that is not JSON, a scope of a shape perch never writes.
  const db = api.deps.store.db;
  await db.updateTable('alert_rules').set({ condition: '{not json' }).where('id', '=', broken).execute();
  await db.updateTable('alert_rules').set({ scope: '{"tags":"vip"}' }).where('id', '=', shaped).execute();

  const list = await call('GET', '/api/admin/alerts');
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const byId = new Map(list.body.data.map((r: { id: string }) => [r.id, r]));
  assert.equal(byId.size, 3);
  const b = byId.get(broken) as Record<string, unknown>;
  assert.equal(b.condition, null);
  assert.deepEqual((b.problem as { unreadable: string[] }).unreadable, ['condition']);
  assert.match((b.problem as { detail: string }).detail, /condition .*cannot be read/);
  assert.deepEqual((byId.get(shaped) as { problem: { unreadable: string[] } }).problem.unreadable, ['scope']);
  assert.equal((byId.get(fine) as Record<string, unknown>).problem, undefined);
  const one = await call('GET', `/api/admin/alerts/${broken}`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.firings, []);

  // A change that leaves the unreadable field out is a 400 naming it, and changes nothing.
  const partial = await call('PATCH', `/api/admin/alerts/${broken}`, { name: 'Renamed' });
  assert.equal(partial.status, 400);
  assert.deepEqual(
    partial.body.errors.map((e: { field: string }) => e.field),
    ['body/condition'],
  );
  assert.equal((await call('GET', `/api/admin/alerts/${broken}`)).body.name, 'Big');
  const repaired = await call('PATCH', `/api/admin/alerts/${broken}`, { condition: { above: 5 } });
  assert.equal(repaired.status, 200, JSON.stringify(repaired.body));
  assert.deepEqual(repaired.body.condition, { above: 5 });
  assert.equal(repaired.body.problem, undefined);
  const rescoped = await call('PATCH', `/api/admin/alerts/${shaped}`, { scope: { tags: ['vip'] } });
  assert.equal(rescoped.status, 200, JSON.stringify(rescoped.body));
  assert.deepEqual(rescoped.body.scope, { tags: ['vip'] });
  assert.equal((await call('DELETE', `/api/admin/alerts/${fine}`)).status, 200);
});
