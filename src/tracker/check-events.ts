// Records the events of a written batch, in its transaction: what each account was before the
// check and what was written, through the pure rules of domain/events.ts, and the alert rules'
// firings (check-alerts.ts).
import { decideCheckEvents, type EventMarks, type NewEvent } from '../domain/events.ts';
import { accountPublicId } from '../domain/ids.ts';
import { loadEventMarks, recordEvents, saveEventMarks } from '../storage/events-repo.ts';
import type { Executor } from '../storage/store.ts';
import type { ClaimedAccount } from '../storage/leases-repo.ts';
import type { CheckWrite } from '../storage/tracking-repo.ts';
import { decideAlertEvents } from './check-alerts.ts';
import type { TrackerContext } from './context.ts';

/** `written` are the checks that were stored (their lease still held), matched to `accounts` by id. */
export async function recordCheckEvents(
  trx: Executor,
  ctx: Pick<TrackerContext, 'store' | 'settings' | 'logger'>,
  accounts: readonly ClaimedAccount[],
  written: readonly CheckWrite[],
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
  await saveEventMarks(trx, ctx.store.caps, changedMarks);
  events.push(...(await decideAlertEvents(trx, ctx, accounts, written, now)));
  await recordEvents(trx, ctx.store.caps, events, now);
}
