// What a batch of one shard's frames does (DESIGN.md §10), in one transaction with the shard's new
// cursor: a tracked DID's new post is stored as polling stores it and announced (account.posted,
// via stream); a deleted post is marked and announced (post.deleted); a profile edit, an identity
// change and a reactivation make the account due at once, so the tracker reads it again from the
// AppView (a changed handle is then a rename); an account taken down or gone changes its status.
// Every write is idempotent by (DID, collection, rkey): a replayed frame changes nothing.
import type { Clock } from '../clock.ts';
import type { EventAccount, NewEvent } from '../domain/events.ts';
import { accountPublicId } from '../domain/ids.ts';
import type { Post } from '../domain/post.ts';
import { postDeletedEvent, postedEvent, type EventSubject } from '../domain/post-events.ts';
import { inactiveStatus, POST_COLLECTION, PROFILE_COLLECTION } from '../domain/stream-shards.ts';
import type { TextModels } from '../domain/post-text.ts';
import { fromPostView } from '../platforms/bluesky-wire.ts';
import { recordEvents } from '../storage/events-repo.ts';
import { insertPosts, markPostsDeleted } from '../storage/posts-repo.ts';
import {
  accountsByDid,
  makeDue,
  writeStreamStatuses,
  type StatusChange,
  type StreamAccount,
} from '../storage/stream-accounts-repo.ts';
import { saveCursor } from '../storage/stream-shards-repo.ts';
import type { Store } from '../storage/store.ts';
import { newPost } from '../tracker/account-result.ts';
import type { StreamFrame } from './frames.ts';

export interface ApplyContext {
  store: Store;
  stream: string;
  shard: number;
  owner: string;
  clock: Clock;
  models: TextModels;
  /** Posts kept per account (the tracker's cap). */
  postsPerAccount: number;
  /** Ages a stored post's first metrics count as a history sample within (the tracker's). */
  toleranceMs: number;
}

export interface Applied {
  posts: number;
  deleted: number;
  statuses: number;
  /** Accounts made due at once: the tracker is to be woken. */
  due: number;
}

/** The shard is another owner's now: nothing of the batch is kept. */
export class ShardLostError extends Error {
  constructor(stream: string, shard: number) {
    super(`shard ${stream}/${shard} is no longer ours`);
    this.name = 'ShardLostError';
  }
}

export async function applyFrames(ctx: ApplyContext, frames: readonly StreamFrame[]): Promise<Applied> {
  const now = ctx.clock.now();
  const lastUs = Math.max(...frames.map((f) => f.timeUs));
  const { caps } = ctx.store;
  return ctx.store.db.transaction().execute(async (trx) => {
    const accounts = await accountsByDid(
      trx,
      frames.filter((f) => f.kind !== 'other').map((f) => f.did),
    );
    const posts: Post[] = [];
    const deletes: { accountId: number; postId: string }[] = [];
    const statuses: StatusChange[] = [];
    const due = new Set<number>();
    for (const frame of frames) {
      const account = accounts.get(frame.did);
      if (!account || frame.kind === 'other') continue;
      if (frame.kind === 'commit') {
        if (frame.collection === PROFILE_COLLECTION) due.add(account.id);
        if (frame.collection !== POST_COLLECTION) continue;
        const uri = `at://${frame.did}/${frame.collection}/${frame.rkey}`;
        if (frame.operation === 'delete') deletes.push({ accountId: account.id, postId: uri });
        const post = frame.operation === 'create' ? streamPost(ctx, account, frame, uri, now) : null;
        if (post) posts.push(post);
      } else if (frame.kind === 'identity' || frame.active) due.add(account.id);
      else {
        const to = inactiveStatus(frame.status);
        // Admins cause paused and pending; a status already right needs nothing.
        if (to === null || to === account.status || account.status === 'paused' || account.status === 'pending')
          continue;
        statuses.push({ account: { ...account }, to, reason: `Jetstream: the account is ${frame.status}` });
        account.status = to;
      }
    }
    const added = await insertPosts(trx, caps, posts, ctx.postsPerAccount);
    const gone = await markPostsDeleted(trx, deletes, now);
    const changed = await writeStreamStatuses(trx, caps, statuses, now);
    await makeDue(trx, [...due], now);
    if (!(await saveCursor(trx, ctx.stream, ctx.shard, ctx.owner, lastUs, now)))
      throw new ShardLostError(ctx.stream, ctx.shard);
    const byId = new Map([...accounts.values()].map((a) => [a.id, a]));
    const subject = (id: number): EventSubject => ({ accountId: id, account: eventAccount(byId.get(id)!) });
    const events: NewEvent[] = [
      ...added.filter((p) => !p.isRepost).map((p) => postedEvent(subject(p.accountId), p, 'stream')),
      ...gone.map((p) => postDeletedEvent(subject(p.accountId), p.postId)),
      ...changed.map(({ account, to, reason }) => ({
        type: 'account.status_changed' as const,
        accountId: account.id,
        account: eventAccount(account),
        data: { from: account.status, to, reason },
      })),
    ];
    await recordEvents(trx, caps, events, now);
    return { posts: added.length, deleted: gone.length, statuses: changed.length, due: due.size };
  });
}

function eventAccount(account: StreamAccount): EventAccount {
  return {
    id: accountPublicId(account.id),
    platform: 'bluesky',
    username: account.username,
    platformUserId: account.platformUserId,
  };
}

/** The post as polling would store it: the record read through the same postView mapping. */
function streamPost(
  ctx: ApplyContext,
  account: StreamAccount,
  frame: Extract<StreamFrame, { kind: 'commit' }>,
  uri: string,
  now: number,
): Post | null {
  const view = {
    uri,
    cid: frame.cid,
    author: { did: frame.did, handle: account.username },
    record: frame.record,
    indexedAt: new Date(Math.floor(frame.timeUs / 1000)).toISOString(),
  };
  const post = fromPostView(view, false);
  return post && newPost(account.id, post, now, ctx.toleranceMs, ctx.models);
}
