// Links a BlueskyWorld to a local Jetstream: every post, repost, delete, profile edit, handle
// change, status change, follow and unfollow of the world is published as the frame Bluesky's
// firehose would carry.
import type { BlueskyPost, WorldChange } from './bluesky-types.ts';
import type { BlueskyWorld } from './bluesky-world.ts';
import type { FakeJetstream } from './jetstream-server.ts';

/** An app.bsky.feed.post record as the author's PDS holds it (lexicons/app/bsky/feed/post.json). */
export function postRecord(post: BlueskyPost, parentCid = 'bafyreiparent'): Record<string, unknown> {
  const record: Record<string, unknown> = { $type: 'app.bsky.feed.post', text: post.text, createdAt: post.createdAt };
  if (post.langs !== null) record.langs = post.langs;
  if (post.facets.length > 0) record.facets = post.facets;
  if (post.replyParent !== null && post.replyRoot !== null)
    record.reply = { root: { uri: post.replyRoot, cid: parentCid }, parent: { uri: post.replyParent, cid: parentCid } };
  return record;
}

/** The frame(s) of one change, published on `jetstream`. */
export function publishChange(jetstream: FakeJetstream, change: WorldChange): void {
  switch (change.kind) {
    case 'post':
      jetstream.commit(change.post.did, {
        operation: 'create',
        collection: 'app.bsky.feed.post',
        rkey: change.post.rkey,
        record: postRecord(change.post),
        cid: change.post.cid,
      });
      return;
    case 'repost':
      jetstream.commit(change.did, {
        operation: 'create',
        collection: 'app.bsky.feed.repost',
        rkey: change.rkey,
        record: { $type: 'app.bsky.feed.repost', subject: change.subject, createdAt: change.createdAt },
      });
      return;
    case 'delete':
      jetstream.commit(change.did, { operation: 'delete', collection: 'app.bsky.feed.post', rkey: change.rkey });
      return;
    case 'profile': {
      const { user } = change;
      const record: Record<string, unknown> = { $type: 'app.bsky.actor.profile' };
      if (user.displayName !== null) record.displayName = user.displayName;
      if (user.description !== null) record.description = user.description;
      jetstream.commit(user.did, { operation: 'update', collection: 'app.bsky.actor.profile', rkey: 'self', record });
      return;
    }
    case 'handle':
      // The PLC operation lands first; the identity event follows with the new handle.
      jetstream.identity(change.did, change.handle);
      return;
    case 'status':
      if (change.status === 'active') jetstream.account(change.did, true);
      else jetstream.account(change.did, false, change.status);
      return;
    case 'follow':
      jetstream.commit(change.did, {
        operation: 'create',
        collection: 'app.bsky.graph.follow',
        rkey: change.rkey,
        record: { $type: 'app.bsky.graph.follow', subject: change.subject, createdAt: change.createdAt },
      });
      return;
    case 'unfollow':
      jetstream.commit(change.did, { operation: 'delete', collection: 'app.bsky.graph.follow', rkey: change.rkey });
      return;
  }
}

/** From now on, every change of `world` is published on `jetstream`; returns the unlink. */
export function streamWorld(world: BlueskyWorld, jetstream: FakeJetstream): () => void {
  const listener = (change: WorldChange) => publishChange(jetstream, change);
  world.changes.push(listener);
  return () => {
    const at = world.changes.indexOf(listener);
    if (at >= 0) world.changes.splice(at, 1);
  };
}
