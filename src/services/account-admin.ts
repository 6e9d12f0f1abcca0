// Admin changes to one account as use cases: each opens its transaction, so the change and its
// audit entry commit together.
import type { Account } from '../domain/account.ts';
import { PerchError } from '../domain/errors.ts';
import {
  findAccount,
  findAccountRowId,
  updateAccount,
  untrackAccount,
  type AccountChange,
} from '../storage/accounts-repo.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import { makeDueNow } from '../storage/tracking-repo.ts';
import { notTracked, type NamedRef } from './account-refs.ts';
import { present } from './accounts.ts';
import type { ServiceDeps } from './context.ts';

export type { AccountChange };

/** Pause/resume, tags (replaced) and note; returns the updated account. */
export async function changeAccount(
  deps: ServiceDeps,
  ref: NamedRef,
  change: AccountChange,
  actor: string,
): Promise<Account> {
  const now = deps.clock.now();
  const account = await deps.store.db.transaction().execute(async (trx) => {
    const updated = await updateAccount(trx, deps.store.caps, ref, change, now);
    if (updated)
      await writeAudit(trx, { actor, action: 'account.update', target: updated.id, detail: { ...change }, at: now });
    return updated;
  });
  if (!account) throw notTracked(ref.name);
  return present(account, deps);
}

/** Stops tracking; with `purge`, deletes the account and everything kept about it. */
export async function stopTracking(deps: ServiceDeps, ref: NamedRef, purge: boolean, actor: string): Promise<void> {
  const now = deps.clock.now();
  const done = await deps.store.db.transaction().execute(async (trx) => {
    const removed = await untrackAccount(trx, deps.store.caps, ref, purge, now);
    if (removed)
      await writeAudit(trx, {
        actor,
        action: purge ? 'account.purge' : 'account.untrack',
        target: `${ref.platform}:${ref.key}`,
        at: now,
      });
    return removed;
  });
  if (!done) throw notTracked(ref.name);
}

/** Makes the account due at once (the caller wakes the tracker); a paused account is refused. */
export async function refreshAccount(deps: ServiceDeps, ref: NamedRef, actor: string): Promise<Account> {
  const now = deps.clock.now();
  const account = await deps.store.db.transaction().execute(async (trx) => {
    const id = await findAccountRowId(trx, ref);
    if (id === null) return null;
    if (!(await makeDueNow(trx, id, now))) {
      // Not updated although tracked a moment ago: paused (or untracked since, which is a 404).
      if ((await findAccountRowId(trx, ref)) === null) return null;
      throw new PerchError(
        'account_paused',
        `${ref.name.slice(0, 100)} is paused, so it is not checked; resume it first with PATCH on this account and {"paused": false}.`,
      );
    }
    const refreshed = await findAccount(trx, ref);
    if (refreshed) await writeAudit(trx, { actor, action: 'account.refresh', target: refreshed.id, at: now });
    return refreshed;
  });
  if (!account) throw notTracked(ref.name);
  return present(account, deps);
}
