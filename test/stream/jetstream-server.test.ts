// The local Jetstream over a real WebSocket: hello before anything is sent, filters, time_us
// cursors with replay, a clamped cursor, dropped and refused connections, and the world's frames.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeJetstream, type FakeJetstream, type JetstreamEvent } from '../../src/simulators/jetstream-server.ts';
import { streamWorld } from '../../src/simulators/jetstream-world.ts';

type Frame = JetstreamEvent;

/** A subscriber that collects every frame; `hello` is sent as the options_update payload when given. */
async function subscribe(jetstream: FakeJetstream, query: string, hello?: Record<string, unknown>) {
  const ws = new WebSocket(`${jetstream.url}?${query}`);
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  await once(ws, 'open');
  if (hello) ws.send(JSON.stringify({ type: 'options_update', payload: hello }));
  const closed = once(ws, 'close');
  return { ws, frames, closed };
}

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('local Jetstream', () => {
  it('sends nothing before the hello, then only the wanted DIDs and collections, live and on replay', async (t) => {
    const jetstream = await startFakeJetstream();
    t.after(() => jetstream.close());
    const first = jetstream.commit('did:plc:a', { operation: 'create', collection: 'app.bsky.feed.post', rkey: '1' });
    const waiting = await subscribe(jetstream, `requireHello=true&cursor=${first.time_us}`);
    jetstream.commit('did:plc:a', { operation: 'create', collection: 'app.bsky.feed.post', rkey: '2' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(waiting.frames.length, 0, 'nothing before the options_update');
    waiting.ws.send(
      JSON.stringify({
        type: 'options_update',
        payload: { wantedDids: ['did:plc:a'], wantedCollections: ['app.bsky.feed.post'], maxMessageSizeBytes: 0 },
      }),
    );
    await until(() => waiting.frames.length === 2);
    jetstream.commit('did:plc:b', { operation: 'create', collection: 'app.bsky.feed.post', rkey: '3' });
    jetstream.commit('did:plc:a', { operation: 'create', collection: 'app.bsky.feed.like', rkey: '4' });
    jetstream.identity('did:plc:a');
    await until(() => waiting.frames.length === 3);
    assert.deepEqual(
      waiting.frames.map((f) => f.kind),
      ['commit', 'commit', 'identity'],
    );
    assert.ok(waiting.frames[0]!.time_us < waiting.frames[1]!.time_us, 'time_us grows');
    assert.equal(jetstream.connections[0]?.optionsUpdates, 1);
    waiting.ws.close();
  });

  it('clamps a cursor older than it keeps to its oldest event, and cuts or refuses connections', async (t) => {
    const jetstream = await startFakeJetstream();
    t.after(() => jetstream.close());
    const old = jetstream.account('did:plc:a', false, 'takendown');
    const kept = jetstream.account('did:plc:a', true);
    jetstream.forgetBefore(kept.time_us);
    const client = await subscribe(jetstream, `cursor=${old.time_us}`);
    await until(() => client.frames.length === 1);
    assert.equal(client.frames[0]?.time_us, kept.time_us);
    assert.equal(jetstream.connections[0]?.replayFrom, kept.time_us, 'replay began later than asked');
    jetstream.down();
    await client.closed;
    const refused = new WebSocket(jetstream.url);
    const [error] = (await once(refused, 'error')) as [Error];
    assert.match(error.message, /503/);
    jetstream.up();
    const again = await subscribe(jetstream, '');
    assert.equal(jetstream.openConnections, 1);
    again.ws.close();
  });

  it('publishes the world: a post record, a delete, a handle change and a takedown', async (t) => {
    const [bsky, jetstream] = await Promise.all([startFakeBluesky(), startFakeJetstream()]);
    t.after(() => Promise.all([bsky.close(), jetstream.close()]));
    streamWorld(bsky, jetstream);
    const user = bsky.addUser({ handle: 'ada.bsky.social' });
    const client = await subscribe(jetstream, 'requireHello=true', { wantedDids: [user.did] });
    await until(() => jetstream.openConnections === 1);
    const post = bsky.addPost(user.did, { text: 'hello', tags: ['perch'], langs: ['en'] });
    bsky.deletePost(post.uri);
    bsky.rename(user.did, 'ada2.bsky.social');
    bsky.takedown(user.did);
    await until(() => client.frames.length === 4);
    const [created, deleted, identity, account] = client.frames;
    assert.ok(created?.kind === 'commit' && deleted?.kind === 'commit');
    assert.ok(identity?.kind === 'identity' && account?.kind === 'account');
    assert.deepEqual(created.commit, {
      rev: created.commit.rev,
      operation: 'create',
      collection: 'app.bsky.feed.post',
      rkey: post.rkey,
      cid: post.cid,
      record: {
        $type: 'app.bsky.feed.post',
        text: post.text,
        createdAt: post.createdAt,
        langs: ['en'],
        facets: post.facets,
      },
    });
    assert.equal(deleted.commit.operation, 'delete');
    assert.equal(identity.identity.handle, 'ada2.bsky.social');
    assert.equal(account.account.active, false);
    assert.equal(account.account.status, 'takendown');
    client.ws.close();
  });

  it('closes a connection whose options_update asks for more than 10,000 DIDs', async (t) => {
    const jetstream = await startFakeJetstream();
    t.after(() => jetstream.close());
    const dids = Array.from({ length: 10_001 }, (_, i) => `did:plc:${i}`);
    const client = await subscribe(jetstream, 'requireHello=true', { wantedDids: dids });
    const [code] = (await client.closed) as [number];
    assert.equal(code, 1008);
  });
});
