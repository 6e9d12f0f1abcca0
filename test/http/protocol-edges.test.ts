// HTTP at its edges: refused uploads close the connection, parser and router errors are problem
// documents, compressed bodies are refused, store-refused values are 400, aborted uploads are no 500.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { PerchError } from '../../src/domain/errors.ts';
import { toPerchError } from '../../src/http/errors.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { listen, rawClient, responseOf, within, withClient, type RawClient } from '../helpers/raw-http.ts';

const admin = { 'x-api-key': ADMIN_KEY };
const MB = 1_048_576;

function chunk(size: number): string {
  const line = 'someusername\n';
  const data = line.repeat(Math.ceil(size / line.length)).slice(0, size);
  return `${data.length.toString(16)}\r\n${data}\r\n`;
}

/** Keeps sending chunks until `total` bytes are out or the server closes; returns what was sent. */
async function keepSending(client: RawClient, total: number, step = MB): Promise<number> {
  let sent = 0;
  while (sent < total && !client.isClosed() && client.socket.writable) {
    const more = client.socket.write(chunk(step));
    sent += step;
    if (!more) await Promise.race([new Promise((resolve) => client.socket.once('drain', resolve)), client.closed]);
  }
  return sent;
}

function uploadHead(key: string): string {
  return [
    'POST /api/admin/insert HTTP/1.1',
    'host: localhost',
    `x-api-key: ${key}`,
    'content-type: text/csv',
    'transfer-encoding: chunked',
    '',
    '',
  ].join('\r\n');
}

describe('protocol edges', () => {
  it('closes the connection after refusing an upload it did not read, instead of draining it', async (t) => {
    const test = await build(t);
    const port = await listen(test);
    await withClient(port, async (client) => {
      client.socket.write(uploadHead('not-a-key'));
      client.socket.write(chunk(256 * 1024));
      const { head, body } = await responseOf(client);
      assert.match(head, /^HTTP\/1\.1 401/);
      assert.match(head, /^connection: close$/im);
      assert.match(head, /^content-type: application\/problem\+json/im);
      assert.equal(JSON.parse(body).code, 'invalid_api_key');
      const total = 64 * MB;
      const sent = await within(keepSending(client, total), 10_000, 'the upload stopping');
      await within(client.closed, 5_000, 'the connection closing');
      assert.ok(sent < total, `the server read all ${sent} bytes instead of closing`);
    });
  });

  it('closes the connection after an over-limit streamed CSV (413)', async (t) => {
    const test = await build(t, { maxImportBytes: 100_000 });
    const port = await listen(test);
    await withClient(port, async (client) => {
      client.socket.write(uploadHead(ADMIN_KEY));
      const total = 64 * MB;
      const sending = keepSending(client, total, 256 * 1024);
      const { head, body } = await responseOf(client, 10_000);
      assert.match(head, /^HTTP\/1\.1 413/);
      assert.match(head, /^connection: close$/im);
      assert.equal(JSON.parse(body).code, 'import_too_large');
      const sent = await within(sending, 10_000, 'the upload stopping');
      await within(client.closed, 5_000, 'the connection closing');
      assert.ok(sent < total, `the server read all ${sent} bytes instead of closing`);
    });
  });

  it('keeps the connection of a refused request whose (empty) body was read', async (t) => {
    const test = await build(t);
    const port = await listen(test);
    await withClient(port, async (client) => {
      client.socket.write('GET /api/me HTTP/1.1\r\nhost: localhost\r\nx-api-key: not-a-key\r\n\r\n');
      const { head } = await responseOf(client);
      assert.match(head, /^HTTP\/1\.1 401/);
      assert.doesNotMatch(head, /^connection: close$/im);
      assert.ok(!client.isClosed());
    });
  });

  it('answers a URL that does not decode with a problem document, not Fastify JSON', async (t) => {
    const test = await build(t);
    const response = await test.app.inject({ method: 'GET', url: '/api/accounts/x/%E0%A4%A', headers: admin });
    assert.equal(response.statusCode, 400);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    const problem = response.json();
    assert.equal(problem.code, 'bad_request');
    assert.equal(problem.detail, 'The URL is not valid.');
    assert.ok(problem.requestId);
    assert.ok(!response.body.includes('FST_'));
  });

  it('answers oversized request headers with a 431 problem document and closes', async (t) => {
    const test = await build(t);
    const port = await listen(test);
    const { status, type, body, closed } = await new Promise<{
      status: number;
      type: string;
      body: string;
      closed: Promise<void>;
    }>((resolve, reject) => {
      const req = httpRequest(
        { port, host: '127.0.0.1', path: `/api/accounts?q=${'a'.repeat(20_000)}`, agent: false },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text, closed }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 431);
    assert.match(type, /^application\/problem\+json/);
    const problem = JSON.parse(body);
    assert.equal(problem.code, 'request_header_too_large');
    assert.equal(problem.status, 431);
    assert.equal(problem.requestId, 'none');
    await within(closed, 5_000, 'the connection closing');
  });

  it('answers malformed HTTP with a 400 problem document and closes', async (t) => {
    const test = await build(t);
    const client = await rawClient(await listen(test));
    client.socket.write('THIS IS NOT HTTP\r\n\r\n');
    const { head, body } = await responseOf(client);
    assert.match(head, /^HTTP\/1\.1 400/);
    assert.match(head, /^content-type: application\/problem\+json/im);
    assert.equal(JSON.parse(body).code, 'bad_request');
    await within(client.closed, 5_000, 'the connection closing');
  });

  it('answers a request that never finishes arriving with a 408 problem document', async (t) => {
    const test = await build(t);
    const port = await listen(test);
    // Node checks request timeouts every 30 s; raise its error directly on the server's socket.
    const serverSocket = new Promise<Socket>((resolve) => test.app.server.once('connection', resolve));
    const client = await rawClient(port);
    client.socket.write('POST /api/admin/insert HTTP/1.1\r\nhost: localhost\r\n');
    const timeout = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    test.app.server.emit('clientError', timeout, await serverSocket);
    const { head, body } = await responseOf(client);
    assert.match(head, /^HTTP\/1\.1 408/);
    assert.equal(JSON.parse(body).code, 'request_timeout');
    await within(client.closed, 5_000, 'the connection closing');
  });

  it('refuses a compressed request body with 415 before reading it', async (t) => {
    const test = await build(t);
    const gzipped = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { ...admin, 'content-type': 'text/csv', 'content-encoding': 'gzip' },
      payload: gzipSync('username\njack\n'),
    });
    assert.equal(gzipped.statusCode, 415);
    assert.match(String(gzipped.headers['content-type']), /^application\/problem\+json/);
    assert.equal(gzipped.json().code, 'unsupported_media_type');
    assert.match(gzipped.json().detail, /uncompressed/);
    assert.equal(gzipped.headers['accept-encoding'], 'identity');
    const listed = await test.app.inject({ method: 'GET', url: '/api/?username=jack', headers: admin });
    assert.equal(listed.statusCode, 404, 'nothing was imported');
    const json = await test.app.inject({
      method: 'POST',
      url: '/api/admin/api-keys',
      headers: { ...admin, 'content-encoding': 'identity, br' },
      payload: { role: 'app', username: 'u' },
    });
    assert.equal(json.statusCode, 415);
    const identity = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { ...admin, 'content-type': 'text/csv', 'content-encoding': 'identity' },
      payload: 'username\njack\n',
    });
    assert.equal(identity.statusCode, 200);
    // Without a body the header changes nothing.
    const get = await test.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { ...admin, 'content-encoding': 'gzip' },
    });
    assert.equal(get.statusCode, 200);
  });

  it('maps values the store refuses to 400 invalid_value, not 500', async (t) => {
    const test = await build(t);
    const caps = test.deps.store.caps;
    const refused =
      caps.name === 'postgres'
        ? { code: '22P05', message: 'unsupported Unicode escape sequence' }
        : { code: 'SQLITE_TOOBIG', message: 'string or blob too big' };
    const error = toPerchError(Object.assign(new Error(refused.message), refused), caps);
    assert.ok(error instanceof PerchError);
    assert.equal(error.code, 'invalid_value');
    assert.equal(error.detail, 'A value in the request cannot be stored.');
    assert.equal(toPerchError(new Error('boom'), caps).code, 'internal');
    if (caps.name !== 'postgres') return;
    const inserted = await test.admin('POST', '/api/admin/insert', { file: 'username\njack\n' });
    assert.equal(inserted.statusCode, 200);
    const patched = await test.app.inject({
      method: 'PATCH',
      url: '/api/admin/accounts/x/jack',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: '{"note":"a\\u0000b"}',
    });
    // Refused by validation or by the store; either way the client's fault, never a 500.
    assert.equal(patched.statusCode, 400, patched.body);
    assert.match(String(patched.headers['content-type']), /^application\/problem\+json/);
    assert.ok(['invalid_value', 'validation_failed'].includes(patched.json().code), patched.body);
  });

  it('logs an upload the client aborts at info level, not as a failed request', async (t) => {
    // At debug, the arrival is logged too: the test waits for it.
    const test = await build(t, {}, { LOG_LEVEL: 'debug' });
    const client = await rawClient(await listen(test));
    client.socket.write(uploadHead(ADMIN_KEY));
    client.socket.write(chunk(64 * 1024));
    // Let the handler start reading the body, then hang up midway.
    await within(
      (async () => {
        while (!test.logs.some((line) => line.includes('"incoming request"') && line.includes('/api/admin/insert')))
          await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      5_000,
      'the request arriving',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    client.socket.destroy();
    await within(
      (async () => {
        while (!test.logs.some((line) => line.includes('request aborted by the client')))
          await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      5_000,
      'the abort being logged',
    );
    const aborted = JSON.parse(test.logs.find((line) => line.includes('request aborted by the client')) ?? '{}');
    assert.equal(aborted.level, 30);
    assert.ok(!test.logs.some((line) => JSON.parse(line).level >= 50), test.logs.join(''));
  });
});
