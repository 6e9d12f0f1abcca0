// The tag rows of tracked accounts (account_tags): written again from the accounts' stored tags and
// columns by every writer of those, in its own transaction, with what that changes in the counts.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { CountChanges } from './account-counts-repo.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Ids per statement, well under every dialect's parameter limit. */
const CHUNK = 1_000;

/** The tag rows of the tracked accounts `which` selects, as they are now. */
const insertTagRows = (caps: DialectCapabilities, which: RawBuilder<unknown>) => sql`
  insert into account_tags (account_id, tag, platform, status, username_key, sort_followers, sort_growth, sort_checked)
  select distinct a.id, j.value, a.platform, a.status, a.username_key, coalesce(a.followers, -1),
    coalesce(a.followers_change_7d, -9007199254740991), coalesce(a.last_checked_at, 0)
  from accounts a ${caps.jsonArrayElements(sql.ref('a.tags'), 'j')}
  where ${which} and a.untracked_at is null and a.tags <> '[]'`;

/**
 * Rewrites the tag rows of `ids` from the accounts as they are now in this transaction: none for
 * an untracked or deleted account, one per tag otherwise, with its platform, status, username and
 * sort values. The rows removed and added go into `changes`. Call it after the accounts' own
 * update, which holds their rows: on PostgreSQL two writers of one account then take turns here.
 */
export async function syncTagRows(
  db: Db,
  caps: DialectCapabilities,
  ids: readonly number[],
  changes: CountChanges,
): Promise<void> {
  for (let at = 0; at < ids.length; at += CHUNK) {
    const chunk = ids.slice(at, at + CHUNK);
    const removed = await db
      .deleteFrom('account_tags')
      .where('account_id', 'in', chunk)
      .returning(['tag', 'platform', 'status', 'sort_followers'])
      .execute();
    for (const row of removed) {
      changes.add(row.tag, row.platform, row.status, -1);
      changes.addFollowers(row.tag, -Math.max(0, Number(row.sort_followers)));
    }
    const added = await sql<{ tag: string; platform: string; status: string; sort_followers: number | string }>`
      ${insertTagRows(caps, sql`a.id in (${sql.join(chunk)})`)} returning tag, platform, status, sort_followers`.execute(
      db,
    );
    for (const row of added.rows) {
      changes.add(row.tag, row.platform, row.status, 1);
      changes.addFollowers(row.tag, Math.max(0, Number(row.sort_followers)));
    }
  }
}

/**
 * Writes every tag row again from the accounts, in one statement: for stores filled outside perch's
 * writers (a bench's raw fill). recountAccounts (account-counts-repo.ts) then counts them.
 */
export async function rebuildTagRows(db: Db, caps: DialectCapabilities): Promise<void> {
  await db.deleteFrom('account_tags').execute();
  await insertTagRows(caps, sql`true`).execute(db);
}
