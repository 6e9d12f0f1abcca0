// The webhook admin routes: definitions checked (a 4xx problem creates nothing), private addresses
// refused without WEBHOOK_ALLOW_PRIVATE, roles, and the full life of an endpoint.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webhookWorld } from './helpers.ts';

test('bad definitions get a 4xx problem with a stable code and create nothing', async (t) => {
  const w = await webhookWorld(t, { WEBHOOK_ALLOW_PRIVATE: 'false' });
  const cases: [unknown, number, string][] = [
    [{ url: 'ftp://example.com/x', events: ['*'] }, 400, 'invalid_webhook_url'],
    [{ url: 'not a url', events: ['*'] }, 400, 'invalid_webhook_url'],
    [{ url: 'https://user:pw@example.com/x', events: ['*'] }, 400, 'invalid_webhook_url'],
    [{ url: 'http://127.0.0.1:9/x', events: ['*'] }, 422, 'webhook_url_refused'],
    [{ url: 'http://localhost/x', events: ['*'] }, 422, 'webhook_url_refused'],
    [{ url: 'http://[::1]/x', events: ['*'] }, 422, 'webhook_url_refused'],
    [{ url: 'http://169.254.169.254/latest', events: ['*'] }, 422, 'webhook_url_refused'],
    [{ url: 'http://10.1.2.3/x', events: ['*'] }, 422, 'webhook_url_refused'],
    [{ url: 'http://[::ffff:127.0.0.1]/x', events: ['*'] }, 422, 'webhook_url_refused'],
    [{ url: 'https://example.com/x', events: ['account.exploded'] }, 400, 'validation_failed'],
    [{ url: 'https://example.com/x', events: [] }, 400, 'validation_failed'],
    [{ url: 'https://example.com/x' }, 400, 'validation_failed'],
    [{ url: 'https://example.com/x', events: ['*'], secret: 'mine' }, 400, 'validation_failed'],
    [{ url: 'https://example.com/x', events: ['*'], tags: ['bad\ntag'] }, 400, 'validation_failed'],
  ];
  for (const [body, status, code] of cases) {
    const response = await w.admin('POST', '/api/admin/webhooks', body);
    assert.equal(response.statusCode, status, JSON.stringify(body));
    assert.equal(response.json().code, code, JSON.stringify(body));
  }
  assert.deepEqual((await w.admin('GET', '/api/admin/webhooks')).json().data, []);
  const audit = await w.deps.store.db
    .selectFrom('audit_log')
    .select('action')
    .where('action', 'like', 'webhook.%')
    .execute();
  assert.equal(audit.length, 0);
});

test('an app key cannot manage webhooks; unknown ids are 404; an endpoint is listed, changed and deleted', async (t) => {
  const w = await webhookWorld(t);
  const app = await w.createKey('app');
  const asApp = await w.app.inject({
    method: 'POST',
    url: '/api/admin/webhooks',
    headers: { 'x-api-key': app.apiKey },
    payload: { url: 'http://127.0.0.1:9/x', events: ['*'] },
  });
  assert.equal(asApp.statusCode, 403);
  assert.equal((await w.app.inject({ method: 'GET', url: '/api/admin/webhooks' })).statusCode, 401);
  for (const [method, url] of [
    ['GET', '/api/admin/webhooks/wh_nope'],
    ['PATCH', '/api/admin/webhooks/wh_nope'],
    ['DELETE', '/api/admin/webhooks/wh_nope'],
    ['POST', '/api/admin/webhooks/wh_nope/test'],
    ['POST', '/api/admin/webhooks/wh_nope/rotate-secret'],
    ['GET', '/api/admin/webhooks/wh_nope/deliveries'],
  ] as const) {
    const response = await w.admin(method, url, method === 'PATCH' ? { enabled: true } : undefined);
    assert.equal(response.statusCode, 404, `${method} ${url}`);
    assert.equal(response.json().code, 'webhook_not_found');
  }
  const hook = await w.createWebhook({
    url: 'http://127.0.0.1:9/a',
    events: ['account.renamed', 'account.renamed'],
    tags: ['vip'],
  });
  const listed = (await w.admin('GET', '/api/admin/webhooks')).json().data;
  assert.deepEqual(
    listed.map((h: { id: string; events: string[]; tags: string[] }) => [h.id, h.events, h.tags]),
    [[hook.id, ['account.renamed'], ['vip']]],
  );
  assert.ok(!JSON.stringify(listed).includes('whsec_'), 'the secret is never listed');
  const changed = await w.admin('PATCH', `/api/admin/webhooks/${hook.id}`, {
    url: 'http://127.0.0.1:9/b',
    events: ['*'],
    description: 'desk',
    enabled: false,
  });
  assert.deepEqual(
    [changed.json().url, changed.json().events, changed.json().description, changed.json().enabled],
    ['http://127.0.0.1:9/b', ['*'], 'desk', false],
  );
  assert.equal((await w.admin('PATCH', `/api/admin/webhooks/${hook.id}`, { url: 'gopher://x' })).statusCode, 400);
  assert.equal((await w.admin('PATCH', `/api/admin/webhooks/${hook.id}`, {})).statusCode, 400);
  assert.equal(
    (await w.admin('GET', `/api/admin/webhooks/${hook.id}`)).json().url,
    'http://127.0.0.1:9/b',
    'a refused change changes nothing',
  );
  assert.equal((await w.admin('DELETE', `/api/admin/webhooks/${hook.id}`)).statusCode, 200);
  assert.equal((await w.admin('GET', `/api/admin/webhooks/${hook.id}`)).statusCode, 404);
  const actions = (
    await w.deps.store.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', 'like', 'webhook.%')
      .orderBy('id')
      .execute()
  ).map((a) => a.action);
  assert.deepEqual(actions, ['webhook.create', 'webhook.update', 'webhook.delete']);
});
