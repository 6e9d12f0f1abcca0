// What a batch of the follows stream does (DESIGN §11), in one transaction with the stream's
// cursor: a follow of a tracked account whose follower list is on is a gained follower, the delete
// of a follow record perch saw created a lost one (storage/live-follows-repo.ts); the changes are
// announced as account.followers_changed (via stream) when the account's minute allows and its
// gained followers have names (the follower round asks the platform for them; past
// FOLLOWER_NAME_WAIT_MS they go out as DIDs), else kept for announceDueFollows, which the stream's
// chore runs. A replayed frame changes nothing.
import type { Clock } from '../clock.ts';
import type { NewEvent } from '../domain/events.ts';
import { FOLLOWS_STREAM } from '../domain/stream-shards.ts';
import { FOLLOWER_EVENT_GAP_MS, FOLLOWER_NAME_WAIT_MS, followersChangedEvent } from '../domain/followers.ts';
import { recordEvents } from '../storage/events-repo.ts';
import type { FollowerRule } from '../storage/follower-claims-repo.ts';
import {
  accountsToAnnounce,
  eventAccounts,
  followedSubjects,
  takeLiveChanges,
} from '../storage/live-follow-changes-repo.ts';
import { followMade, followUndone } from '../storage/live-follows-repo.ts';
import { saveCursor } from '../storage/stream-shards-repo.ts';
import type { Executor, Store } from '../storage/store.ts';
import { ShardLostError } from './apply-frames.ts';
import { followChanges } from './follow-changes.ts';
import type { StreamFrame } from './frames.ts';

export interface FollowApplyContext {
  store: Store;
  owner: string;
  clock: Clock;
  rule: FollowerRule;
}

export interface FollowsApplied {
  gained: number;
  lost: number;
  events: number;
}

export async function applyFollowFrames(
  ctx: FollowApplyContext,
  frames: readonly StreamFrame[],
): Promise<FollowsApplied> {
  const now = ctx.clock.now();
  const lastUs = Math.max(...frames.map((f) => f.timeUs));
  const { made, undone } = followChanges(frames);
  return ctx.store.db.transaction().execute(async (trx) => {
    const subjects =
      made.length > 0
        ? await followedSubjects(
            trx,
            made.map((f) => f.subjectDid),
            ctx.rule,
          )
        : new Map<string, number>();
    const changed = new Set<number>();
    let gained = 0;
    let lost = 0;
    // Creates first: a record made and deleted within one batch is then seen both ways.
    for (const follow of made) {
      const accountId = subjects.get(follow.subjectDid);
      if (accountId === undefined) continue;
      if (await followMade(trx, follow, accountId, now)) {
        gained += 1;
        changed.add(accountId);
      }
    }
    for (const follow of undone) {
      const accountId = await followUndone(trx, follow, now);
      if (accountId === null) continue;
      lost += 1;
      changed.add(accountId);
    }
    if (!(await saveCursor(trx, FOLLOWS_STREAM, 0, ctx.owner, lastUs, now)))
      throw new ShardLostError(FOLLOWS_STREAM, 0);
    const events = await announce(trx, [...changed], now);
    // Last in the transaction, as recordEvents asks.
    await recordEvents(trx, ctx.store.caps, events, now);
    return { gained, lost, events: events.length };
  });
}

/** Announces the live changes that waited for their account's minute; returns the events written. */
export async function announceDueFollows(store: Store, clock: Clock): Promise<number> {
  const ids = await accountsToAnnounce(store.reader, clock.now(), FOLLOWER_EVENT_GAP_MS);
  let written = 0;
  for (const id of ids)
    written += await store.db.transaction().execute(async (trx) => {
      const now = clock.now();
      const events = await announce(trx, [id], now);
      await recordEvents(trx, store.caps, events, now);
      return events.length;
    });
  return written;
}

/** The events of the accounts' live changes whose minute allows one now (the rest stay kept). */
async function announce(db: Executor, ids: readonly number[], now: number): Promise<NewEvent[]> {
  if (ids.length === 0) return [];
  const accounts = await eventAccounts(db, ids);
  const events: NewEvent[] = [];
  for (const id of ids) {
    const account = accounts.get(id);
    const changes = account ? await takeLiveChanges(db, id, now, FOLLOWER_EVENT_GAP_MS, FOLLOWER_NAME_WAIT_MS) : null;
    const event =
      account && changes ? followersChangedEvent(id, account, { ...changes, baseline: false }, 'stream') : null;
    if (event) events.push(event);
  }
  return events;
}
