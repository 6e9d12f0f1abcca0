// /metrics and /api/health are public and cost store scans: any number of scrapers at once cost one
// read of the counts per METRICS_INTERVAL, reads go on meanwhile, and METRICS_KEY / METRICS_PORT
// put /metrics behind a key or on a port of its own. Health names no host or pid.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { startServer } from '../helpers/server-process.ts';
import { freshStoreUrl } from '../helpers/store-url.ts';
import { SECRET } from '../helpers/cli.ts';

const readsOfCounts = (text: string) => Number(/^perch_metrics_store_reads_total (\d+)/m.exec(text)?.[1] ?? NaN);

describe('public endpoints', () => {
  it('reads the counts once for 200 parallel scrapes, and once more per interval', async (t) => {
    const test = await build(t);
    const imported = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'text/csv' },
      payload: 'username\njack\nalice\n',
    });
    assert.equal(imported.statusCode, 200);
    const scrape = () => test.app.inject({ method: 'GET', url: '/metrics' });
    const read = () =>
      test.app.inject({ method: 'GET', url: '/api/?username=jack', headers: { 'x-api-key': ADMIN_KEY } });
    const answers = await Promise.all([...Array.from({ length: 200 }, scrape), ...Array.from({ length: 20 }, read)]);
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    const last = answers[199]!.body;
    assert.match(last, /perch_accounts\{platform="x",status="pending"\} 2/);
    assert.equal(readsOfCounts(last), 1, 'one read of the store for 200 scrapes');
    assert.equal(readsOfCounts((await scrape()).body), 1, 'still fresh');
    test.clock.advance(test.config.metricsIntervalMs);
    assert.equal(readsOfCounts((await scrape()).body), 2, 'read again once the interval passed');

    const healths = await Promise.all(
      Array.from({ length: 100 }, () => test.app.inject({ method: 'GET', url: '/api/health' })),
    );
    for (const health of healths) assert.equal(health.statusCode, 200, health.body);
    for (const health of healths) assert.doesNotMatch(health.body, /"host"|"pid"/);
  });

  it('wants the key when METRICS_KEY is set', async (t) => {
    const key = 'metrics-key-0123456789abcdefghijklmnopqrstuvwxyz';
    const test = await build(t, {}, { METRICS_KEY: key });
    const none = await test.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().code, 'invalid_api_key');
    const wrong = await test.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${key.slice(1)}x` },
    });
    assert.equal(wrong.statusCode, 401);
    const right = await test.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(right.statusCode, 200);
    assert.match(right.body, /perch_metrics_store_reads_total/);
  });

  it('serves /metrics only on METRICS_PORT when it is set', { timeout: 60_000 }, async (t) => {
    const location = await freshStoreUrl();
    const server = await startServer({
      DATABASE_URL: location.url,
      ADMIN_API_KEY: ADMIN_KEY,
      KEY_HASH_SECRET: SECRET,
      METRICS_PORT: '0',
    });
    t.after(async () => {
      server.child.kill('SIGKILL');
      await server.exited;
      await location.drop();
    });
    const listening = server.lines.filter(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at'),
    );
    const metricsLine = await server.waitForLog(
      (line) =>
        typeof line.msg === 'string' && line.msg.startsWith('Server listening at') && line.msg !== listening[0]?.msg,
    );
    const metricsUrl = String(metricsLine.msg).replace('Server listening at ', '');
    assert.notEqual(metricsUrl, server.url);
    assert.equal((await fetch(`${server.url}/metrics`)).status, 404, 'not beside the API');
    const scraped = await fetch(`${metricsUrl}/metrics`);
    assert.equal(scraped.status, 200);
    assert.match(await scraped.text(), /perch_accounts/);
    assert.equal((await fetch(`${metricsUrl}/api/health/live`)).status, 404, 'nothing else on the metrics port');
  });
});
