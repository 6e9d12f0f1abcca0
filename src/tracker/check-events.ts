// Records the events of a written batch, in its transaction: what each account was before the
// check and what was written, through the pure rules of domain/events.ts, and the alert rules'
// firings (check-alerts.ts).
import { decideCheckEvents, type EventMarks, type NewEvent } from '../domain/events.ts';
import type { Post } from '../domain/post.ts';
import { postedEvent } from '../domain/post-events.ts';
import { accountPublicId } from '../domain/ids.ts';
import { loadEventMarks, recordEvents, saveEventMarks } from '../storage/events-repo.ts';
import type { Executor } from '../storage/store.ts';
import type { ClaimedAccount } from '../storage/leases-repo.ts';
import type { CheckWrite } from '../storage/tracking-repo.ts';
import { decideAlertEvents } from './check-alerts.ts';
import type { TrackerContext } from './context.ts';

/**
 * `written` are the checks that were stored (their lease still held), matched to `accounts` by id;
 * `added` the posts they stored that were new.
 */
export async function recordCheckEvents(
  trx: Executor,
  ctx: Pick<TrackerContext, 'store' | 'settings' | 'logger' | 'alertRules'>,
  accounts: readonly ClaimedAccount[],
  written: readonly CheckWrite[],
  added: readonly Post[],
  now: number,
): Promise<void> {
  const rules = ctx.settings.events;
  if (rules === null || written.length === 0) return;
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const marks = await loadEventMarks(
    trx,
    written.map((w) => w.id),
  );
  const changedMarks = new Map<number, EventMarks>();
  const events: NewEvent[] = [];
  for (const write of written) {
    const before = byId.get(write.id);
    if (!before) continue;
    const renamed = write.renames !== undefined && write.renames.length > before.renames.length;
    const decision = decideCheckEvents(
      {
        accountId: before.id,
        publicId: accountPublicId(before.id),
        platform: before.platform,
        username: before.username,
        platformUserId: before.platformUserId,
        status: before.status,
      },
      {
        status: write.status,
        statusReason: write.statusReason ?? null,
        username: write.username ?? before.username,
        platformUserId: write.platformUserId ?? before.platformUserId,
        followers: write.followers ?? null,
        renamedFrom: renamed ? before.username : null,
      },
      marks.get(write.id) ?? null,
      now,
      rules,
    );
    events.push(...decision.events);
    if (decision.marks !== null && decision.marks !== marks.get(write.id)) changedMarks.set(write.id, decision.marks);
  }
  events.push(...polledPostEvents(byId, written, added));
  await saveEventMarks(trx, ctx.store.caps, changedMarks);
  events.push(...(await decideAlertEvents(trx, ctx, accounts, written, now)));
  await recordEvents(trx, ctx.store.caps, events, now);
}

/**
 * account.posted (via poll) for each new own post a check stored, except at an account's first
 * timeline read: what it finds there is the baseline, not news. A post the stream stored first is
 * not new here, so it is announced once whichever way it came.
 */
function polledPostEvents(
  byId: ReadonlyMap<number, ClaimedAccount>,
  written: readonly CheckWrite[],
  added: readonly Post[],
): NewEvent[] {
  const writes = new Map(written.map((w) => [w.id, w]));
  return added.flatMap((post) => {
    const before = byId.get(post.accountId);
    const write = writes.get(post.accountId);
    if (!before || !write || post.isRepost || before.postsSeenCount === null) return [];
    const account = {
      id: accountPublicId(before.id),
      platform: before.platform,
      username: write.username ?? before.username,
      platformUserId: write.platformUserId ?? before.platformUserId,
    };
    return [postedEvent({ accountId: before.id, account }, post, 'poll')];
  });
}
