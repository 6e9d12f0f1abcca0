// The JSON form of a large import ({"file": …} past 1 MiB) is parsed on a worker thread instead of
// the event loop; to the caller it behaves exactly as the small form: imported in full, or refused
// with the same problem, changing nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OFF_THREAD_BYTES, parseJsonOffThread } from '../../src/http/json-off-thread.ts';
import { ADMIN_KEY, build, countAccounts, type TestApp } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' };
const NAMES = Array.from({ length: 90_000 }, (_, i) => `name${String(i).padStart(7, '0')}`);
const CSV = `username\n${NAMES.join('\n')}\n`;

async function insert(t: TestApp, payload: string) {
  return t.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload });
}

describe('a JSON import larger than 1 MiB', () => {
  it('is imported in full, as the same file sent small would be', async (t) => {
    const test = await build(t);
    const body = JSON.stringify({ file: CSV });
    assert.ok(Buffer.byteLength(body) > OFF_THREAD_BYTES, 'the body takes the thread');
    const response = await insert(test, body);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().inserted, NAMES.length);
    assert.equal(await countAccounts(test), NAMES.length);
    const one = await test.app.inject({ method: 'GET', url: '/api/?username=name0045678', headers: admin });
    assert.equal(one.statusCode, 200, one.body);
  });

  it('is refused as invalid_json when it does not parse, or names a prototype key, and changes nothing', async (t) => {
    const test = await build(t);
    const good = JSON.stringify({ file: CSV });
    for (const payload of [
      good.slice(0, -2),
      `{"__proto__": {"polluted": true}, "file": ${JSON.stringify(CSV)}}`,
      `{"constructor": {"prototype": {"polluted": true}}, "file": ${JSON.stringify(CSV)}}`,
    ]) {
      const response = await insert(test, payload);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().code, 'invalid_json');
    }
    // Nested deep: still a clear 400 (the body is no object with a file), never a 500.
    const deep = await insert(test, `${'['.repeat(600_000)}1${']'.repeat(600_000)}`);
    assert.equal(deep.statusCode, 400, deep.body);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(await countAccounts(test), 0);
  });

  it('a hostile 9 MB body of millions of values is a 4xx, without the main thread holding them', async (t) => {
    const test = await build(t);
    // Nine million tiny values: a heap several times the body's size if parsed whole.
    const hostile = JSON.stringify({ file: 'username\njack\n', pad: Array.from({ length: 4_600_000 }, () => 0) });
    assert.ok(hostile.length > 9_000_000);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let slowestTurn = 0;
    let last = performance.now();
    const probe = setInterval(() => {
      slowestTurn = Math.max(slowestTurn, performance.now() - last - 10);
      last = performance.now();
    }, 10);
    const response = await insert(test, hostile);
    clearInterval(probe);
    // The thread's heap is bounded: it runs out (413), or the pad comes back as a stand-in and the
    // schema refuses the body (400); either way nothing of the millions reaches the main thread.
    assert.ok([400, 413].includes(response.statusCode), response.body);
    assert.ok(['validation_failed', 'body_too_large'].includes(response.json().code));
    const grown = (process.memoryUsage().rss - rssBefore) / 1_048_576;
    assert.ok(grown < 200, `the process grew by ${grown.toFixed(0)} MiB`);
    assert.ok(slowestTurn < 500, `the event loop was held ${slowestTurn.toFixed(0)} ms`);
    assert.equal(await countAccounts(test), 0);
  });

  it('keeps the body schema: an unknown member is a 400 validation problem', async (t) => {
    const test = await build(t);
    const response = await insert(test, JSON.stringify({ file: CSV, extra: 1 }));
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(await countAccounts(test), 0);
  });
});

describe('parseJsonOffThread', () => {
  it('gives the value JSON.parse gives, for a body that is a slice of a larger buffer too', async () => {
    const text = JSON.stringify({ file: 'a,b\n"quoted ""x"""\né 🐦 \u0000', n: 2.5, ok: true, none: null });
    const padded = Buffer.from(`xx${text}yy`);
    assert.deepEqual(await parseJsonOffThread(padded.subarray(2, padded.length - 2)), JSON.parse(text));
    assert.deepEqual(await parseJsonOffThread(Buffer.from(text)), JSON.parse(text));
    await assert.rejects(parseJsonOffThread(Buffer.from('{"file": ')), { code: 'invalid_json' });
    // A byte order mark is dropped, as Fastify's own parser drops it.
    assert.deepEqual(await parseJsonOffThread(Buffer.from(`\ufeff${text}`)), JSON.parse(text));
    // Only what the insert reads comes back: the file, and the other members as stand-ins of their kind.
    const wide = JSON.stringify({ file: 7, list: [1, 2, 3], map: { a: 'b' }, text: 'long' });
    assert.deepEqual(await parseJsonOffThread(Buffer.from(wide)), { file: 7, list: [], map: {}, text: '' });
    assert.deepEqual(await parseJsonOffThread(Buffer.from('[1, 2, 3]')), []);
    // Prototype keys are found however deep they are.
    const deep = `${'['.repeat(100_000)}{"__proto__": 1}${']'.repeat(100_000)}`;
    await assert.rejects(parseJsonOffThread(Buffer.from(deep)), { code: 'invalid_json' });
  });
});
