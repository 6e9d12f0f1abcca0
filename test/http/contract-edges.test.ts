// Loose ends of the HTTP contract: JSON routes refuse other types with 415, the OpenAPI document
// describes every request body and error, uploads must be UTF-8, an oversized import has one code,
// X pages are no usernames, and an unauthenticated upload is refused before `100 Continue`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build, countAccounts } from '../helpers/app.ts';
import { listen, responseOf, within, withClient } from '../helpers/raw-http.ts';

const admin = { 'x-api-key': ADMIN_KEY };
const LATIN1_CSV = Buffer.from('username,note\njack,caf\xe9\n', 'latin1');

function multipart(boundary: string, content: Buffer): Buffer {
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.csv"\r\ncontent-type: text/csv\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), content, Buffer.from(`\r\n--${boundary}--\r\n`)]);
}

describe('HTTP contract edges', () => {
  it('answers 415 unsupported_media_type to a JSON route sent text/plain or a form', async (t) => {
    const test = await build(t);
    const requests = [
      {
        method: 'POST' as const,
        url: '/api/admin/api-keys',
        payload: '{"role":"app","username":"bob"}',
        type: 'text/plain',
      },
      {
        method: 'POST' as const,
        url: '/api/admin/api-keys',
        payload: 'role=app&username=bob',
        type: 'application/x-www-form-urlencoded',
      },
      {
        method: 'PATCH' as const,
        url: '/api/admin/accounts/x/jack',
        payload: '{"paused":true}',
        type: 'text/plain; charset=utf-8',
      },
      { method: 'POST' as const, url: '/api/admin/accounts/x/jack/refresh', payload: 'now', type: 'text/plain' },
    ];
    for (const { method, url, payload, type } of requests) {
      const response = await test.app.inject({ method, url, headers: { ...admin, 'content-type': type }, payload });
      assert.equal(response.statusCode, 415, `${method} ${url} ${type}: ${response.body}`);
      assert.equal(response.json().code, 'unsupported_media_type');
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    }
    const keys = await test.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin });
    assert.deepEqual(keys.json().data, [], 'no key was created');
  });

  it('describes the three upload forms and every error response as application/problem+json in OpenAPI', async (t) => {
    const test = await build(t);
    const doc = (await test.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const insert = doc.paths['/api/admin/insert'].post;
    assert.deepEqual(Object.keys(insert.requestBody.content).sort(), [
      'application/json',
      'multipart/form-data',
      'text/csv',
    ]);
    assert.equal(insert.requestBody.content['text/csv'].schema.type, 'string');
    assert.deepEqual(Object.keys(insert.requestBody.content['multipart/form-data'].schema.properties), ['file']);
    let errors = 0;
    for (const [path, methods] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>,
    )) {
      for (const [method, op] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(op.responses)) {
          // Health answers 503 with its own health document, not a problem.
          if (Number(status) < 400 || path.startsWith('/api/health')) continue;
          errors += 1;
          assert.deepEqual(
            Object.keys(response.content ?? {}),
            ['application/problem+json'],
            `${method} ${path} ${status}`,
          );
        }
      }
    }
    assert.ok(errors > 30, `only ${errors} error responses described`);
  });

  it('refuses an upload that is not UTF-8 with 400 invalid_encoding in every form, writing nothing', async (t) => {
    const test = await build(t);
    const forms = [
      { headers: { 'content-type': 'text/csv' }, payload: LATIN1_CSV },
      { headers: { 'content-type': 'multipart/form-data; boundary=B' }, payload: multipart('B', LATIN1_CSV) },
      {
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ file: `data:text/csv;base64,${LATIN1_CSV.toString('base64')}` }),
      },
    ];
    for (const form of forms) {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/admin/insert',
        headers: { ...admin, ...form.headers },
        payload: form.payload,
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().code, 'invalid_encoding');
    }
    assert.equal(await countAccounts(test), 0);
  });

  it('gives an oversized import one code and message whichever form it comes in, even past the JSON body limit', async (t) => {
    const maxImportBytes = 1_000;
    const test = await build(t, { maxImportBytes });
    const big = `username\n${'a'.repeat(5_000)}\n`;
    const forms = [
      { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ file: big }) },
      // Past the route's body limit (1.4 × MAX_IMPORT_BYTES + 64 KiB): refused by the JSON parser itself.
      { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ file: 'a'.repeat(100_000) }) },
      {
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ file: `data:text/csv;base64,${Buffer.from(big).toString('base64')}` }),
      },
      { headers: { 'content-type': 'text/csv' }, payload: big },
      { headers: { 'content-type': 'multipart/form-data; boundary=B' }, payload: multipart('B', Buffer.from(big)) },
    ];
    const answers = new Set<string>();
    for (const form of forms) {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/admin/insert',
        headers: { ...admin, ...form.headers },
        payload: form.payload,
      });
      assert.equal(response.statusCode, 413, response.body);
      answers.add(`${response.json().code}: ${response.json().detail}`);
    }
    assert.deepEqual(
      [...answers],
      [`import_too_large: The file is larger than MAX_IMPORT_BYTES (${maxImportBytes} bytes).`],
    );
  });

  it('rejects addresses of X pages as usernames, in a query and in an import, saying why', async (t) => {
    const test = await build(t);
    const appKey = (await test.createKey('app')).apiKey;
    for (const raw of ['https://x.com/home', 'x.com/i/lists/1', 'https://x.com/search?q=perch']) {
      const response = await test.app.inject({
        method: 'GET',
        url: `/api/?username=${encodeURIComponent(raw)}`,
        headers: { 'x-api-key': appKey },
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().code, 'invalid_username');
      assert.match(response.json().detail, /is a page of X, not a profile/);
    }
    const upload = await test.admin('POST', '/api/admin/insert', { file: 'https://x.com/home\nx.com/explore\njack\n' });
    assert.equal(upload.statusCode, 200, upload.body);
    assert.equal(upload.json().inserted, 1);
    assert.deepEqual(
      upload.json().rejected.map((r: { line: number; code: string }) => `${r.line}:${r.code}`),
      ['1:invalid_username', '2:invalid_username'],
    );
  });

  it('refuses an upload without a valid admin key before sending 100 Continue, and continues for an admin', async (t) => {
    const test = await build(t);
    const port = await listen(test);
    const head = (key: string) =>
      [
        'POST /api/admin/insert HTTP/1.1',
        'host: localhost',
        `x-api-key: ${key}`,
        'content-type: text/csv',
        'content-length: 5',
        'expect: 100-continue',
        '',
        '',
      ].join('\r\n');
    const appKey = (await test.createKey('app')).apiKey;
    for (const [key, status] of [
      ['not-a-key', 401],
      [appKey, 403],
    ] as const) {
      await withClient(port, async (client) => {
        client.socket.write(head(key)); // the body is held back, as a client waiting for 100 does
        const { head: answer } = await responseOf(client, 10_000);
        assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status}`), answer);
        assert.doesNotMatch(client.received(), /100 Continue/);
      });
    }
    await withClient(port, async (client) => {
      client.socket.write(head(ADMIN_KEY));
      await within(
        (async () => {
          while (!client.received().includes('\r\n\r\n')) await new Promise((resolve) => setTimeout(resolve, 5));
        })(),
        10_000,
        'an interim response',
      );
      assert.match(client.received(), /^HTTP\/1\.1 100 Continue\r\n\r\n/);
      client.socket.write('jack\n');
      const deadline = Date.now() + 10_000;
      while (!/HTTP\/1\.1 200/.test(client.received()) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 5));
      assert.match(client.received(), /HTTP\/1\.1 200/);
    });
    assert.equal(await countAccounts(test), 1);
  });
});
