// Protocol behaviour shared by all routes: problem documents, 404/405/413/415, security headers,
// health, and the OpenAPI document.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY };

describe('errors and protocol', () => {
  it('answers unknown paths with 404 and known paths with a wrong method with 405 + Allow', async (t) => {
    const test = await build(t);
    const missing = await test.app.inject({ method: 'GET', url: '/api/nope', headers: admin });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'not_found');
    assert.match(String(missing.headers['content-type']), /^application\/problem\+json/);
    const wrong = await test.app.inject({ method: 'PUT', url: '/api/admin/api-keys', headers: admin });
    assert.equal(wrong.statusCode, 405);
    assert.deepEqual(String(wrong.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'POST']);
    const wrongParam = await test.app.inject({ method: 'POST', url: '/api/accounts/x/jack', headers: admin });
    assert.equal(wrongParam.statusCode, 405);
  });

  it('gives every problem the RFC 9457 members, a request id and no internals', async (t) => {
    const test = await build(t);
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: { ...admin, 'x-request-id': 'trace-42' },
      payload: { role: 'x' },
    });
    const problem = response.json();
    assert.equal(response.statusCode, 400);
    for (const member of ['type', 'title', 'status', 'detail', 'code', 'requestId', 'errors'])
      assert.ok(member in problem, member);
    // Our id, with the caller's kept beside it, not instead of it.
    assert.match(problem.requestId, /^req-[0-9a-f]{6}-[0-9a-z]+$/);
    assert.equal(problem.callerRequestId, 'trace-42');
    assert.equal(response.headers['x-request-id'], problem.requestId);
    assert.ok(
      test.logs.some((line) => line.includes('"callerRequestId":"trace-42"') && line.includes(problem.requestId)),
      'logs carry both ids',
    );
    assert.ok(
      problem.errors.some((e: { field: string }) => e.field === 'body/username'),
      JSON.stringify(problem.errors),
    );
    assert.ok(!/ajv|fastify|stack|node_modules/i.test(response.body));
  });

  it('refuses large bodies with 413 and unknown content types with 415', async (t) => {
    const test = await build(t);
    const huge = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: admin,
      payload: { role: 'app', username: 'x'.repeat(2_000_000) },
    });
    assert.equal(huge.statusCode, 413);
    assert.equal(huge.json().code, 'body_too_large');
    const csv = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: { ...admin, 'content-type': 'text/csv' },
      payload: 'role,username',
    });
    assert.equal(csv.statusCode, 415);
  });

  it('hides internal failures behind a 500 with the request id', async (t) => {
    const test = await build(t, {}, {}, (app) => {
      app.get('/api/test-only/boom', { config: { access: 'public' } }, async () => {
        throw new Error('SELECT secret FROM somewhere failed at /srv/perch/src/x.ts');
      });
    });
    const boom = await test.app.inject({ method: 'GET', url: '/api/test-only/boom' });
    assert.equal(boom.statusCode, 500);
    assert.equal(boom.json().code, 'internal');
    assert.ok(!boom.body.includes('SELECT') && !boom.body.includes('/srv'));
    assert.ok(boom.json().requestId);
  });

  it('sets security headers and no-store on API answers', async (t) => {
    const test = await build(t);
    const response = await test.app.inject({ method: 'GET', url: '/api/health' });
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers['x-frame-options'], 'DENY');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.match(String(response.headers['content-security-policy']), /frame-ancestors 'none'/);
  });

  it('reports health publicly as application/health+json, and 503 when the store is gone', async (t) => {
    const test = await build(t);
    const live = await test.app.inject({ method: 'GET', url: '/api/health/live' });
    assert.deepEqual(live.json(), { status: 'pass' });
    const health = await test.app.inject({ method: 'GET', url: '/api/health' });
    assert.equal(health.statusCode, 200);
    assert.match(String(health.headers['content-type']), /^application\/health\+json/);
    assert.equal(health.json().checks.store.status, 'pass');
    assert.ok(!health.body.includes(test.config.databaseUrl));
    await test.deps.store.reader.destroy();
    if (test.deps.store.reader !== test.deps.store.db) {
      const down = await test.app.inject({ method: 'GET', url: '/api/health' });
      assert.equal(down.statusCode, 503);
      assert.equal(down.json().status, 'fail');
      assert.equal((await test.app.inject({ method: 'GET', url: '/api/health/live' })).statusCode, 200);
    }
  });

  it('publishes an OpenAPI 3.1 document where every operation has a description, an example and its security', async (t) => {
    const test = await build(t);
    const response = await test.app.inject({ method: 'GET', url: '/api/openapi.json' });
    assert.equal(response.statusCode, 200);
    const doc = response.json();
    assert.equal(doc.openapi, '3.1.0');
    const operations = Object.entries(
      doc.paths as Record<
        string,
        Record<string, { description?: string; security?: unknown; responses: Record<string, unknown> }>
      >,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );
    assert.ok(operations.length >= 13, `only ${operations.length} operations`);
    for (const { name, op } of operations) {
      assert.ok(op.description && op.description.length > 20, `${name} has a description`);
      // An example of its own, or in the component schema its success response points to.
      const success = JSON.stringify(Object.entries(op.responses).filter(([status]) => status.startsWith('2')));
      const referenced = [...success.matchAll(/#\/components\/schemas\/(\w+)/g)].map(
        (m) => doc.components.schemas[m[1] ?? ''],
      );
      assert.ok(
        success.includes('"example') || referenced.some((schema) => JSON.stringify(schema).includes('"examples"')),
        `${name} has an example`,
      );
      // Health and metrics are public, for probes and scrapers.
      if (!name.includes('/health') && !name.endsWith('/metrics'))
        assert.deepEqual(op.security, [{ apiKey: [] }], `${name} declares its security`);
    }
    const page = await test.app.inject({ method: 'GET', url: '/api/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html/i);
  });
});
