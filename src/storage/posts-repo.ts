// Recent posts of tracked accounts with their metrics, capped per account (the newest are kept).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import type { Database, PostsTable } from './schema.ts';

type Db = Kysely<Database>;

export type PostRow = Selectable<PostsTable>;

/** Adds posts not stored yet, then trims each touched account to its newest `cap`. */
export async function insertPosts(db: Db, caps: DialectCapabilities, posts: readonly PostRow[], cap: number): Promise<void> {
  if (posts.length === 0) return;
  const perRow = 18;
  const chunk = Math.max(1, Math.floor(caps.maxParameters / perRow));
  for (let i = 0; i < posts.length; i += chunk) {
    await db.insertInto('posts').values(posts.slice(i, i + chunk)).onConflict((oc) => oc.columns(['account_id', 'post_id']).doNothing()).execute();
  }
  for (const accountId of new Set(posts.map((p) => p.account_id))) {
    const cutoff = db
      .selectFrom('posts')
      .select('created_at')
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .limit(1)
      .offset(cap - 1);
    await db.deleteFrom('posts').where('account_id', '=', accountId).where('created_at', '<', cutoff).execute();
  }
}

/** Posts of several accounts created at or after `since`, for analysis (one query per batch). */
export async function recentPosts(db: Db, accountIds: readonly number[], since: number): Promise<Map<number, PostRow[]>> {
  const byAccount = new Map<number, PostRow[]>();
  if (accountIds.length === 0) return byAccount;
  const rows = await db.selectFrom('posts').selectAll().where('account_id', 'in', accountIds).where('created_at', '>=', since).execute();
  for (const row of rows) {
    const list = byAccount.get(Number(row.account_id)) ?? [];
    list.push(row);
    byAccount.set(Number(row.account_id), list);
  }
  return byAccount;
}

/** One account's posts, newest first; `before` is a [created_at, post_id] position from the previous page. */
export async function listPosts(db: Db, accountId: number, limit: number, before?: readonly [number, string]): Promise<{ rows: PostRow[]; more: boolean }> {
  let select = db.selectFrom('posts').selectAll().where('account_id', '=', accountId);
  if (before) select = select.where(sql<boolean>`(created_at, post_id) < (${before[0]}, ${before[1]})`);
  const rows = await select.orderBy('created_at', 'desc').orderBy('post_id', 'desc').limit(limit + 1).execute();
  const more = rows.length > limit;
  return { rows: more ? rows.slice(0, limit) : rows, more };
}
