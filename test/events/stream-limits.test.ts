// The event stream's limits: streams per key and per process (429 too_many_streams beyond), and a
// revoked key's stream ending at once here and within 5 s when another process revoked it.
import assert from 'node:assert/strict';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

interface Opened {
  status: number;
  headers: IncomingMessage['headers'];
  body: Promise<string>;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

function openStream(h: TestApp, key: string): Promise<Opened> {
  const { port } = h.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(
      `http://127.0.0.1:${port}/api/events/stream`,
      { headers: { 'x-api-key': key } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        const ended = new Promise<void>((done) => res.on('end', done));
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: ended.then(() => text),
          ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
    req.end();
  });
}

test('a key holds at most EVENT_STREAMS_PER_KEY streams: the sixth gets 429 too_many_streams with Retry-After', async (t) => {
  const h = await build(t, { tracker: false });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const app = await h.createKey('app');
  const streams: Opened[] = [];
  t.after(() => streams.forEach((s) => s.close()));
  for (let i = 0; i < 5; i++) {
    const opened = await openStream(h, app.apiKey);
    streams.push(opened);
    assert.equal(opened.status, 200);
  }
  const sixth = await openStream(h, app.apiKey);
  assert.equal(sixth.status, 429);
  assert.equal(sixth.headers['retry-after'], '10');
  assert.equal(sixth.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.equal(JSON.parse(await sixth.body).code, 'too_many_streams');
  // Another key is not counted against this one.
  const other = await openStream(h, ADMIN_KEY);
  streams.push(other);
  assert.equal(other.status, 200);
  // A stream that ends gives its place back.
  streams[0]!.close();
  let again: Opened | null = null;
  for (let tries = 0; tries < 50 && again?.status !== 200; tries++) {
    again = await openStream(h, app.apiKey);
    if (again.status !== 200) await new Promise((r) => setTimeout(r, 20));
  }
  streams.push(again!);
  assert.equal(again!.status, 200);
});

test('a process holds at most EVENT_STREAMS_MAX streams, all keys together', async (t) => {
  const h = await build(t, { tracker: false, eventStreamsMax: 2 });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const app = await h.createKey('app');
  const first = await openStream(h, app.apiKey);
  const second = await openStream(h, ADMIN_KEY);
  t.after(() => [first, second].forEach((s) => s.close()));
  assert.deepEqual([first.status, second.status], [200, 200]);
  const third = await openStream(h, (await h.createKey('app')).apiKey);
  assert.equal(third.status, 429);
  assert.equal(JSON.parse(await third.body).code, 'too_many_streams');
});

test('revoking a key ends its streams at once; a revocation by another process ends them within 5 s', async (t) => {
  const h = await build(t, { tracker: false });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const here = await h.createKey('app');
  const kept = await h.createKey('app');
  const revokedHere = await openStream(h, here.apiKey);
  const untouched = await openStream(h, kept.apiKey);
  t.after(() => [revokedHere, untouched].forEach((s) => s.close()));
  assert.equal(revokedHere.status, 200);
  let started = Date.now();
  const revoke = await h.app.inject({
    method: 'DELETE',
    url: `/api/admin/api-keys/${here.id}`,
    headers: { 'x-api-key': ADMIN_KEY },
  });
  assert.equal(revoke.statusCode, 200, revoke.body);
  await revokedHere.ended;
  assert.ok(Date.now() - started < 1_000, `the revoked key's stream ended after ${Date.now() - started} ms`);

  // Another process writes the revocation: this one learns it when its cached check expires.
  const elsewhere = await openStream(h, kept.apiKey);
  t.after(() => elsewhere.close());
  await h.deps.store.db.updateTable('api_keys').set({ revoked_at: h.clock.now() }).where('id', '=', kept.id).execute();
  started = Date.now();
  h.clock.advance(h.config.keyCacheTtlMs);
  await Promise.all([untouched.ended, elsewhere.ended]);
  const took = Date.now() - started;
  assert.ok(took <= 5_000, `the stream of a key revoked elsewhere ended after ${took} ms`);
  assert.match(await elsewhere.body, /the API key no longer works/);
});
