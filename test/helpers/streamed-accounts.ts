// Resolved Bluesky accounts written straight into the store, not due for an hour: in the tests of
// real processes following Jetstream, only the stream touches them; and the post frames it follows.
import type { FakeJetstream, JetstreamEvent } from '../../src/simulators/jetstream-server.ts';
import type { Store } from '../../src/storage/store.ts';

/** Rows per insert (a statement's parameters are limited). */
const BATCH = 2_000;

/** One active account per DID; `handle(i)` is the username of the i-th. */
export async function insertStreamedAccounts(
  store: Store,
  dids: readonly string[],
  handle: (i: number) => string,
): Promise<void> {
  const now = Date.now();
  for (let at = 0; at < dids.length; at += BATCH)
    await store.db
      .insertInto('accounts')
      .values(
        dids.slice(at, at + BATCH).map((did, j) => ({
          platform: 'bluesky',
          username: handle(at + j),
          username_key: handle(at + j),
          platform_user_id: did,
          status: 'active',
          tracked_since: now,
          next_check_at: now + 3_600_000,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
}

/** A post created in `did`'s repository, published on the local Jetstream. */
export function publishPost(jetstream: FakeJetstream, did: string, rkey: string, text: string): JetstreamEvent {
  return jetstream.commit(did, {
    operation: 'create',
    collection: 'app.bsky.feed.post',
    rkey,
    record: { $type: 'app.bsky.feed.post', text, createdAt: new Date().toISOString() },
  });
}
