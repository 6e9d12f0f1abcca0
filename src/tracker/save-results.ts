// Writes a checked batch in one transaction: each account only while its lease is still ours,
// then the snapshots, refreshed posts and new posts of the accounts that were written.
import { upsertSnapshots } from '../storage/history-repo.ts';
import { insertPosts, saveRefreshedPosts } from '../storage/posts-repo.ts';
import { nameTakenByOther, writeCheck, type ClaimedAccount } from '../storage/tracking-repo.ts';
import type { AccountResult } from './account-result.ts';
import type { TrackerContext } from './context.ts';

/** Returns how many accounts were written (the rest had lost their lease). */
export async function saveResults(ctx: TrackerContext, accounts: readonly ClaimedAccount[], results: readonly AccountResult[], now: number): Promise<number> {
  const { store, owner, logger } = ctx;
  return store.db.transaction().execute(async (trx) => {
    const written: AccountResult[] = [];
    for (const [index, result] of results.entries()) {
      const account = accounts[index];
      const { write } = result;
      if (account && write.usernameKey !== undefined && write.usernameKey !== account.username.toLowerCase() && (await nameTakenByOther(trx, account.platform, write.usernameKey, account.id))) {
        // Another row already tracks the new name (imported separately): keep ours as it was.
        logger.warn({ account: account.id, to: write.username }, 'rename not applied: the new name is tracked as another account');
        delete write.username;
        delete write.usernameKey;
        delete write.renames;
      }
      if (await writeCheck(trx, owner, write, now)) written.push(result);
    }
    const snapshots = written.flatMap((r) => (r.snapshot ? [r.snapshot] : []));
    await upsertSnapshots(trx, store.caps, snapshots);
    // Refreshed rows first: insertPosts trims each account to its cap afterwards.
    await saveRefreshedPosts(trx, store.caps, written.flatMap((r) => r.refreshed));
    await insertPosts(trx, store.caps, written.flatMap((r) => r.posts), ctx.settings.postsPerAccount);
    return written.length;
  });
}
