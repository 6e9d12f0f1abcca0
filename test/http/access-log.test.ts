// The access log: one line per answered request at info, with what an operator needs and no key;
// lines written in batches all reach the output when the process stops.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { startServer } from '../helpers/server-process.ts';
import { freshStoreUrl } from '../helpers/store-url.ts';

type Line = Record<string, unknown> & { req?: Record<string, unknown>; res?: Record<string, unknown> };

describe('access log', () => {
  it('writes one line per request when it is answered, with method, URL without keys, status and time', async (t) => {
    const test = await build(t);
    const { apiKey } = await test.createKey('app');
    const ok = await test.app.inject({
      method: 'GET',
      url: `/api/me?api_key=${apiKey}`,
      headers: { 'x-api-key': apiKey },
    });
    const refused = await test.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': 'perch_nope' } });
    for (const [response, status] of [
      [ok, 200],
      [refused, 401],
    ] as const) {
      assert.equal(response.statusCode, status);
      const id = String(response.headers['x-request-id']);
      const lines = test.logs.map((text) => JSON.parse(text) as Line).filter((line) => line.reqId === id);
      const access = lines.filter((line) => line.msg === 'request completed');
      assert.equal(access.length, 1, JSON.stringify(lines));
      const [line] = access as [Line];
      assert.equal(line.level, 30);
      assert.equal(line.req?.method, 'GET');
      assert.equal(line.res?.statusCode, status);
      assert.equal(typeof line.responseTime, 'number');
      assert.ok(!lines.some((l) => l.msg === 'incoming request'), 'the arrival is logged at debug only');
    }
    const logs = test.logs.join('');
    assert.ok(logs.includes('/api/me?api_key=[redacted]'), 'the URL is logged with the key blanked out');
    assert.ok(!logs.includes(apiKey.slice(10)), 'no key in the logs');
  });

  it('logs the arrival too at debug', async (t) => {
    const test = await build(t, {}, { LOG_LEVEL: 'debug' });
    const response = await test.app.inject({ method: 'GET', url: '/api/health/live' });
    const id = String(response.headers['x-request-id']);
    const messages = test.logs
      .map((text) => JSON.parse(text) as Line)
      .filter((line) => line.reqId === id)
      .map((line) => line.msg);
    assert.deepEqual(messages, ['incoming request', 'request completed']);
  });

  it('writes out every line it holds when stopped with SIGTERM', { timeout: 120_000 }, async (t) => {
    const location = await freshStoreUrl();
    t.after(() => location.drop());
    const server = await startServer({
      DATABASE_URL: location.url,
      ADMIN_API_KEY: ADMIN_KEY,
      KEY_HASH_SECRET: 'access-log-secret-0123456789abcdefghij',
    });
    const ids = new Set<string>();
    for (let i = 0; i < 30; i += 1) {
      const response = await fetch(`${server.url}/api/health/live`);
      await response.arrayBuffer();
      ids.add(String(response.headers.get('x-request-id')));
    }
    server.child.kill('SIGTERM');
    assert.equal((await server.exited).code, 0);
    const logged = server.lines.filter((line) => line.msg === 'request completed' && ids.has(String(line.reqId)));
    assert.equal(logged.length, ids.size);
    assert.equal(server.lines.at(-1)?.msg, 'stopped');
  });
});
