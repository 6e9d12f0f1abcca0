// Writes a checked batch: each account only while its lease is still ours, then the snapshots,
// refreshed posts and new posts of the accounts that were written. One transaction for the batch; if the store refuses it
// (one account's value it cannot take), the accounts are written one by one, and an account whose
// own write is refused is recorded as a failed check, so the others keep their results.
import { ALL_ACCOUNTS, applyCountChanges, CountChanges } from '../storage/account-counts-repo.ts';
import { syncTagRows } from '../storage/account-tags-repo.ts';
import type { DialectCapabilities } from '../storage/dialects/capabilities.ts';
import { upsertSnapshots } from '../storage/history-repo.ts';
import type { ClaimedAccount } from '../storage/leases-repo.ts';
import { insertPosts, saveRefreshedPosts } from '../storage/posts-repo.ts';
import type { Executor } from '../storage/store.ts';
import { nameTakenByOther, writeCheck } from '../storage/tracking-repo.ts';
import type { AccountResult } from './account-result.ts';
import { recordCheckEvents } from './check-events.ts';
import type { TrackerContext } from './context.ts';

export interface Checked {
  account: ClaimedAccount;
  result: AccountResult;
}

/**
 * The write of a check's results, in the caller's transaction `trx`: the accounts (while their
 * lease is ours), their snapshots, refreshed posts and new posts. Returns the results written (the others had
 * lost their lease).
 */
export async function writeCheckResults(
  trx: Executor,
  ctx: Pick<TrackerContext, 'store' | 'owner' | 'logger' | 'settings' | 'alertRules'>,
  checked: readonly Checked[],
  now: number,
): Promise<AccountResult[]> {
  const { store, owner, logger } = ctx;
  const written: AccountResult[] = [];
  for (const { account, result } of checked) {
    const { write } = result;
    if (
      write.usernameKey !== undefined &&
      write.usernameKey !== account.username.toLowerCase() &&
      (await nameTakenByOther(trx, account.platform, write.usernameKey, account.id))
    ) {
      // Another row already tracks the new name (imported separately): keep ours as it was.
      logger.warn(
        { account: account.id, to: write.username },
        'rename not applied: the new name is tracked as another account',
      );
      delete write.username;
      delete write.usernameKey;
      delete write.renames;
    }
    if (await writeCheck(trx, owner, write, now)) written.push(result);
  }
  await upsertSnapshots(
    trx,
    store.caps,
    written.flatMap((r) => (r.snapshot ? [r.snapshot] : [])),
  );
  // Refreshed rows first: insertPosts trims each account to its cap afterwards.
  await saveRefreshedPosts(
    trx,
    store.caps,
    written.flatMap((r) => r.refreshed),
  );
  const added = await insertPosts(
    trx,
    store.caps,
    written.flatMap((r) => r.posts),
    ctx.settings.postsPerAccount,
  );
  // Counts are taken late, so their rows stay locked (PostgreSQL) only until the commit just after.
  await keepListIndex(trx, store.caps, checked, written, now);
  await recordCheckEvents(
    trx,
    ctx,
    checked.map((c) => c.account),
    written.map((r) => r.write),
    added,
    now,
  );
  return written;
}

/**
 * The written accounts' tag rows follow their new status, name and sort values, and the counts
 * their status (moved from the claimed one: writeCheck writes only while it is still the account's).
 */
async function keepListIndex(
  trx: Executor,
  caps: DialectCapabilities,
  checked: readonly Checked[],
  written: readonly AccountResult[],
  now: number,
): Promise<void> {
  if (written.length === 0) return;
  const claimed = new Map(checked.map((c) => [c.account.id, c.account]));
  const changes = new CountChanges();
  for (const { write } of written) {
    const account = claimed.get(write.id);
    if (!account) continue;
    changes.move(account.platform, account.status, write.status, []);
    if (write.followers !== undefined) changes.addFollowers(ALL_ACCOUNTS, write.followers - (account.followers ?? 0));
  }
  await syncTagRows(
    trx,
    caps,
    written.map((r) => r.write.id),
    changes,
  );
  await applyCountChanges(trx, changes, now);
}

/**
 * Saves the batch; returns the results written. `failed(account, reason)` builds the failed check
 * recorded for an account whose own result the store refused.
 */
export async function saveResults(
  ctx: TrackerContext,
  checked: readonly Checked[],
  now: number,
  failed: (account: ClaimedAccount, reason: string) => AccountResult,
): Promise<AccountResult[]> {
  const { store, logger } = ctx;
  try {
    return await store.db.transaction().execute((trx) => writeCheckResults(trx, ctx, checked, now));
  } catch (error) {
    // The store being away is the batch's problem, not one account's: the caller defers the batch.
    if (store.caps.isUnavailable(error)) throw error;
  }
  const written: AccountResult[] = [];
  for (const one of checked) {
    try {
      written.push(...(await store.db.transaction().execute((trx) => writeCheckResults(trx, ctx, [one], now))));
    } catch (error) {
      if (store.caps.isUnavailable(error)) throw error;
      logger.warn(
        { err: error, account: one.account.id },
        "the store refused this account's result; recorded as a failed check",
      );
      const reason = `the store refused the result: ${error instanceof Error ? error.message : String(error)}`;
      const retry = { account: one.account, result: failed(one.account, reason) };
      written.push(...(await store.db.transaction().execute((trx) => writeCheckResults(trx, ctx, [retry], now))));
    }
  }
  return written;
}
