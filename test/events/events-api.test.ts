// GET /api/events and its stream over HTTP: cursors, filters, roles, bad input, Last-Event-ID.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

async function importCsv(h: TestApp, csv: string) {
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/admin/insert',
    headers: { 'x-api-key': ADMIN_KEY },
    payload: { file: csv },
  });
  assert.equal(response.statusCode, 200, response.body);
}

test('events page oldest first; polling with nextCursor returns only newer ones; filters; app keys may read', async (t) => {
  const h = await build(t, { tracker: false });
  const app = await h.createKey('app');
  const get = (query: string) =>
    h.app.inject({ method: 'GET', url: `/api/events${query}`, headers: { 'x-api-key': app.apiKey } });
  const empty = await get('');
  assert.equal(empty.statusCode, 200);
  assert.deepEqual(empty.json().data, []);
  await importCsv(h, 'username\njack\n');
  await importCsv(h, 'username\nalice\nbob\n');
  const first = await get('?limit=1');
  assert.deepEqual(
    first.json().data.map((e: { data: { inserted: number } }) => e.data.inserted),
    [1],
  );
  const second = await get(`?after=${first.json().nextCursor}`);
  assert.deepEqual(
    second.json().data.map((e: { data: { inserted: number } }) => e.data.inserted),
    [2],
  );
  const third = await get(`?after=${second.json().nextCursor}`);
  assert.deepEqual(third.json().data, []);
  assert.equal(third.json().nextCursor, second.json().nextCursor, 'nothing new: the same cursor again');
  await importCsv(h, 'username\ncarl\n');
  assert.deepEqual(
    (await get(`?after=${third.json().nextCursor}`)).json().data.map((e: { type: string }) => e.type),
    ['import.completed'],
  );
  assert.equal((await get('?type=account.renamed')).json().data.length, 0);
  assert.equal((await get('?type=import.completed,account.renamed')).json().data.length, 3);
  const event = first.json().data[0];
  assert.deepEqual(Object.keys(event).sort(), ['createdAt', 'data', 'id', 'type']);
});

test('bad cursors, unknown types and bad values get a 400 problem; no key gets 401', async (t) => {
  const h = await build(t, { tracker: false });
  for (const query of ['?after=nonsense', '?type=account.exploded', '?limit=0', '?platform=myspace']) {
    const response = await h.app.inject({
      method: 'GET',
      url: `/api/events${query}`,
      headers: { 'x-api-key': ADMIN_KEY },
    });
    assert.equal(response.statusCode, 400, query);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.ok(['invalid_cursor', 'validation_failed'].includes(response.json().code), response.body);
  }
  assert.equal((await h.app.inject({ method: 'GET', url: '/api/events' })).statusCode, 401);
  assert.equal((await h.app.inject({ method: 'GET', url: '/api/events/stream' })).statusCode, 401);
});

/** Reads a live SSE stream until `count` events arrived; `onOpen` runs once the stream has its start. */
function readStream(
  url: string,
  headers: Record<string, string>,
  count: number,
  onOpen?: () => void,
): Promise<{ id: string; event: string; data: { id: string; type: string } }[]> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      onOpen?.();
      assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
      let buffer = '';
      const events: { id: string; event: string; data: { id: string; type: string } }[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((l) => !l.startsWith(':'))
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
          );
          if (fields.data)
            events.push({ id: fields.id ?? '', event: fields.event ?? '', data: JSON.parse(fields.data) });
          if (events.length >= count) {
            req.destroy();
            resolve(events);
          }
        }
      });
    });
    req.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
    req.end();
  });
}

test('the stream sends new events with cursors as ids; Last-Event-ID resumes after one', async (t) => {
  const h = await build(t, { tracker: false });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/events/stream`;
  await importCsv(h, 'username\nold\n');
  // Without a cursor the stream starts with the next event: the old import is not sent.
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const live = readStream(base, { 'x-api-key': ADMIN_KEY }, 2, opened);
  await open;
  await importCsv(h, 'username\na1\n');
  await importCsv(h, 'username\na2\na3\n');
  const events = await live;
  assert.deepEqual(
    events.map((e) => e.event),
    ['import.completed', 'import.completed'],
  );
  assert.deepEqual(
    events.map((e) => (e.data as unknown as { data: { inserted: number } }).data.inserted),
    [1, 2],
  );
  // Resuming after the first of them gets the second, and what came after.
  await importCsv(h, 'username\na4\n');
  const resumed = await readStream(base, { 'x-api-key': ADMIN_KEY, 'last-event-id': events[0]!.id }, 2);
  assert.deepEqual(
    resumed.map((e) => e.data.id),
    [events[1]!.data.id, resumed[1]!.data.id],
  );
  assert.notEqual(resumed[1]!.data.id, events[1]!.data.id);
  // The stream's ids are the polling cursors.
  const polled = await h.app.inject({
    method: 'GET',
    url: `/api/events?after=${events[0]!.id}&limit=1`,
    headers: { 'x-api-key': ADMIN_KEY },
  });
  assert.equal(polled.json().data[0].id, events[1]!.data.id);
});

test('the OpenAPI document has the event document and one payload schema per event type', async (t) => {
  const h = await build(t, { tracker: false });
  const doc = (await h.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  const names = Object.keys(doc.components.schemas);
  for (const type of [
    'account.checked_first',
    'account.status_changed',
    'account.renamed',
    'account.followers_milestone',
    'account.followers_spike',
    'import.completed',
    'webhook.test',
  ]) {
    assert.ok(names.includes(`Event.${type}`), `Event.${type} is a component`);
    assert.ok(
      JSON.stringify(doc.components.schemas[`Event.${type}`]).includes('"examples"'),
      `Event.${type} has an example`,
    );
  }
  assert.ok(doc.paths['/api/events/stream'].get.responses['200'].content['text/event-stream']);
});
