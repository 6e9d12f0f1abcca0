// Follower pages against the local platforms over real HTTP: the wire shapes, the cursors, the
// page sizes, X's own rate limit and its bill per user returned.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { createBlueskyClient } from '../../src/platforms/bluesky.ts';
import { createXClient } from '../../src/platforms/x.ts';
import type { PlatformClient } from '../../src/platforms/types.ts';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeX } from '../../src/simulators/x-server.ts';

async function all(client: PlatformClient, id: string) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await client.fetchFollowers(id, cursor);
    ids.push(...page.value.followers.map((f) => f.platformUserId));
    cursor = page.value.cursor;
    pages += 1;
  } while (cursor !== null);
  return { ids, pages };
}

describe('follower pages', () => {
  it('Bluesky getFollowers: profileViews newest first, 100 a page, a cursor to the end', async (t: TestContext) => {
    const bsky = await startFakeBluesky();
    t.after(() => bsky.close());
    const ada = bsky.addUser({ handle: 'ada.bsky.social' });
    const fans = bsky.addFollowers(ada.did, 250, 'fan');
    assert.equal(bsky.user(ada.did).followers, 250);

    const raw = await fetch(`${bsky.url}/xrpc/app.bsky.graph.getFollowers?actor=ada.bsky.social&limit=2`);
    const body = (await raw.json()) as {
      subject: { did: string };
      followers: { did: string; handle: string; indexedAt: string }[];
      cursor: string;
    };
    assert.equal(body.subject.did, ada.did);
    assert.deepEqual(
      body.followers.map((f) => f.handle),
      ['fan249.bsky.social', 'fan248.bsky.social'],
    );
    assert.equal(typeof body.followers[0]!.indexedAt, 'string');
    assert.equal(typeof body.cursor, 'string');
    const tooMany = await fetch(`${bsky.url}/xrpc/app.bsky.graph.getFollowers?actor=${ada.did}&limit=101`);
    assert.equal(tooMany.status, 400);

    bsky.unfollow(fans[7]!.did, ada.did);
    const client = createBlueskyClient({ baseUrl: bsky.url });
    const { ids, pages } = await all(client, ada.did);
    assert.equal(pages, 3);
    assert.equal(ids.length, 249);
    assert.ok(!ids.includes(fans[7]!.did));
    assert.equal(new Set(ids).size, 249);
    await assert.rejects(client.fetchFollowers('did:plc:nobodyhere', null), { kind: 'invalid_request' });
  });

  it('X followers: 1,000 a page, next_token, its own rate limit, and the bill counts every user returned', async (t: TestContext) => {
    const x = await startFakeX();
    t.after(() => x.close());
    const jack = x.addUser({ username: 'jack' });
    const fans = x.addFollowers(jack.id, 2_500, 'fan');
    x.unfollow(fans[0]!.id, jack.id);
    x.setRateLimit('followers', 15);
    const client = createXClient({ baseUrl: x.url, bearerToken: 'test-x-token' });
    const first = await client.fetchFollowers(jack.id, null);
    assert.equal(first.value.followers.length, 1_000);
    assert.equal(first.value.followers[0]!.username, 'fan2499');
    assert.equal(first.reads, 1_000);
    assert.equal(first.rateLimit?.limit, 15);
    assert.equal(first.rateLimit?.remaining, 14);
    const rest = await all(client, jack.id);
    assert.equal(rest.pages, 3);
    assert.equal(rest.ids.length, 2_499);
    const day = [...x.bill().values()][0]!;
    assert.equal(day.users, 2_499, 'a user returned again the same day is not billed again');

    const bad = await fetch(`${x.url}/2/users/${jack.id}/followers?max_results=1001`, {
      headers: { authorization: 'Bearer test-x-token' },
    });
    assert.equal(bad.status, 400);
    x.suspend(jack.id);
    await assert.rejects(client.fetchFollowers(jack.id, null), { kind: 'invalid_request' });
  });
});
