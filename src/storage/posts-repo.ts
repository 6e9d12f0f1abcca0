// Recent posts of tracked accounts with their metrics, capped per account (the newest are kept);
// the recent ones are read again at each check, so their metrics stay current.
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Post } from '../domain/post.ts';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { toPost, toPostRow } from './posts-map.ts';
import { pieceSizes, preparedQuery, runByShape } from './prepared.ts';
import type { Database, PostsTable } from './schema.ts';

type Db = Kysely<Database>;

/** Columns a row carries at most (the insert is chunked to the dialect's parameter limit). */
const COLUMNS = 22;

/** The columns a new post's row writes, in the order of the insert's parameters. */
const INSERTED = Object.keys(
  toPostRow({
    accountId: 0,
    id: '',
    createdAt: 0,
    text: '',
    url: null,
    lang: null,
    sentiment: null,
    isRepost: false,
    isReply: false,
    likes: 0,
    reposts: 0,
    replies: 0,
    quotes: 0,
    hashtags: [],
    mentions: [],
    domains: [],
    fetchedAt: 0,
    metricsObservedAt: 0,
    status: 'live',
    statusAt: null,
    metricsHistory: [],
  }),
) as (keyof Insertable<PostsTable>)[];

/**
 * Adds posts not stored yet, then trims each touched account to its newest `cap`; returns the
 * posts that were new (a post already stored, by account and id, is left as it is). A batch of
 * any size runs as a few multi-row inserts of learnt shapes (no query built per call) and one
 * prepared trim per account, which keeps a stream's batches and a poll's pages on the same path.
 */
export async function insertPosts(
  db: Db,
  caps: DialectCapabilities,
  posts: readonly Post[],
  cap: number,
): Promise<Post[]> {
  if (posts.length === 0) return [];
  const added = new Set<string>();
  let at = 0;
  for (const size of pieceSizes(posts.length, Math.floor(caps.maxParameters / COLUMNS))) {
    const piece = posts.slice(at, (at += size));
    const values: unknown[] = [];
    for (const post of piece) {
      const row = toPostRow(post);
      for (const column of INSERTED) values.push(row[column]);
    }
    const result = await runByShape<{ account_id: number; post_id: string }>(
      db,
      `insert-posts:${size}`,
      values,
      (args) => {
        const rows: Record<string, unknown>[] = [];
        for (let k = 0; k < args.length; k += INSERTED.length)
          rows.push(Object.fromEntries(INSERTED.map((column, c) => [column, args[k + c]])));
        return db
          .insertInto('posts')
          .values(rows as unknown as Insertable<PostsTable>[])
          .onConflict((oc) => oc.columns(['account_id', 'post_id']).doNothing())
          .returning(['account_id', 'post_id']);
      },
    );
    for (const row of result.rows) added.add(`${Number(row.account_id)} ${row.post_id}`);
  }
  for (const accountId of new Set(posts.map((p) => p.accountId))) await trimAccount(db, accountId, cap - 1);
  return posts.filter((post) => added.has(`${post.accountId} ${post.id}`));
}

/** Deletes an account's posts older than its `offset + 1` newest (ties with the last kept stay). */
const trimAccount = preparedQuery((db: Db, accountId: number, offset: number) =>
  db
    .deleteFrom('posts')
    .where('account_id', '=', accountId)
    .where(
      'created_at',
      '<',
      db
        .selectFrom('posts')
        .select('created_at')
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .limit(1)
        .offset(offset),
    ),
);

/**
 * Marks stored posts deleted (the platform says they are gone); returns the ones that were not
 * marked already, so a replayed delete changes and announces nothing.
 */
export async function markPostsDeleted(
  db: Db,
  posts: readonly { accountId: number; postId: string }[],
  now: number,
): Promise<{ accountId: number; postId: string }[]> {
  const marked: { accountId: number; postId: string }[] = [];
  for (const post of posts) {
    const row = await db
      .updateTable('posts')
      .set({ status: 'deleted', status_at: now })
      .where('account_id', '=', post.accountId)
      .where('post_id', '=', post.postId)
      .where('status', '!=', 'deleted')
      .returning('post_id')
      .executeTakeFirst();
    if (row) marked.push(post);
  }
  return marked;
}

/** Posts of several accounts created at or after `since`, for analysis (one query per batch). */
export async function recentPosts(db: Db, accountIds: readonly number[], since: number): Promise<Map<number, Post[]>> {
  const byAccount = new Map<number, Post[]>();
  if (accountIds.length === 0) return byAccount;
  const rows = await db
    .selectFrom('posts')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('created_at', '>=', since)
    .execute();
  for (const row of rows) {
    const post = toPost(row);
    const list = byAccount.get(post.accountId) ?? [];
    list.push(post);
    byAccount.set(post.accountId, list);
  }
  return byAccount;
}

/**
 * The posts whose metrics a check reads again: own posts (not reposts of others) that are not
 * deleted, whose last read was made before they were `windowMs` old (so each gets one read past
 * the window's end), the `perAccount` newest per account, least recently read first.
 */
export async function refreshCandidates(
  db: Db,
  accountIds: readonly number[],
  now: number,
  windowMs: number,
  perAccount: number,
): Promise<Post[]> {
  if (accountIds.length === 0 || perAccount <= 0) return [];
  // The created_at bound keeps the scan on (account_id, created_at); a post whose account was not
  // checked for a long time (paused) gets its last read only while it is under twice the window.
  const rows = await db
    .selectFrom('posts')
    .selectAll()
    .where('account_id', 'in', accountIds)
    .where('created_at', '>=', now - 2 * windowMs)
    .where('is_repost', '=', 0)
    .where('status', '!=', 'deleted')
    .where(sql<boolean>`metrics_observed_at - created_at < ${windowMs}`)
    .orderBy('account_id')
    .orderBy('created_at', 'desc')
    .execute();
  const taken = new Map<number, number>();
  const picked = rows.map(toPost).filter((post) => {
    const n = taken.get(post.accountId) ?? 0;
    taken.set(post.accountId, n + 1);
    return n < perAccount;
  });
  return picked.sort((a, b) => a.metricsObservedAt - b.metricsObservedAt);
}

/**
 * Writes refreshed posts (stored posts with their new metrics, status and history) in one
 * statement per chunk: an upsert that changes only those columns. Called in the transaction that
 * writes the account under its lease, before insertPosts trims, so every row still exists.
 */
export async function saveRefreshedPosts(db: Db, caps: DialectCapabilities, posts: readonly Post[]): Promise<void> {
  const chunk = Math.max(1, Math.floor(caps.maxParameters / COLUMNS));
  for (let i = 0; i < posts.length; i += chunk) {
    await db
      .insertInto('posts')
      .values(posts.slice(i, i + chunk).map(toPostRow))
      .onConflict((oc) =>
        oc.columns(['account_id', 'post_id']).doUpdateSet((eb) => ({
          likes: eb.ref('excluded.likes'),
          reposts: eb.ref('excluded.reposts'),
          replies: eb.ref('excluded.replies'),
          quotes: eb.ref('excluded.quotes'),
          metrics_observed_at: eb.ref('excluded.metrics_observed_at'),
          status: eb.ref('excluded.status'),
          status_at: eb.ref('excluded.status_at'),
          metrics_history: eb.ref('excluded.metrics_history'),
        })),
      )
      .execute();
  }
}

/** One account's posts, newest first; `before` is a [created_at, post_id] position from the previous page. */
export async function listPosts(
  db: Db,
  accountId: number,
  limit: number,
  before?: readonly [number, string],
): Promise<{ posts: Post[]; more: boolean }> {
  let select = db.selectFrom('posts').selectAll().where('account_id', '=', accountId);
  if (before) select = select.where(sql<boolean>`(created_at, post_id) < (${before[0]}, ${before[1]})`);
  const rows = await select
    .orderBy('created_at', 'desc')
    .orderBy('post_id', 'desc')
    .limit(limit + 1)
    .execute();
  const more = rows.length > limit;
  return { posts: (more ? rows.slice(0, limit) : rows).map(toPost), more };
}

/** When each account's newest stored post was written (own posts and reposts alike). */
export async function lastPostTimes(db: Db, accountIds: readonly number[]): Promise<Map<number, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('posts')
    .select(['account_id', (eb) => eb.fn.max('created_at').as('last')])
    .where('account_id', 'in', accountIds)
    .groupBy('account_id')
    .execute();
  return new Map(rows.map((r) => [Number(r.account_id), Number(r.last)]));
}
