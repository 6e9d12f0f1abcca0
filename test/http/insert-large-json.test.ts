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
      // Nested past what a thread can hand back: still a clear 400, never a 500.
      `${'['.repeat(600_000)}1${']'.repeat(600_000)}`,
    ]) {
      const response = await insert(test, payload);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().code, 'invalid_json');
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
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
    const text = JSON.stringify({ file: 'a,b\n"quoted ""x"""\n', n: [1, 2.5, null, true], s: 'é 🐦 \u0000' });
    const padded = Buffer.from(`xx${text}yy`);
    assert.deepEqual(await parseJsonOffThread(padded.subarray(2, padded.length - 2)), JSON.parse(text));
    assert.deepEqual(await parseJsonOffThread(Buffer.from(text)), JSON.parse(text));
    await assert.rejects(parseJsonOffThread(Buffer.from('{"file": ')), { code: 'invalid_json' });
    // A byte order mark is dropped, as Fastify's own parser drops it.
    assert.deepEqual(await parseJsonOffThread(Buffer.from(`\ufeff${text}`)), JSON.parse(text));
    // Prototype keys are found however deep they are.
    const deep = `${'['.repeat(100_000)}{"__proto__": 1}${']'.repeat(100_000)}`;
    await assert.rejects(parseJsonOffThread(Buffer.from(deep)), { code: 'invalid_json' });
  });
});
