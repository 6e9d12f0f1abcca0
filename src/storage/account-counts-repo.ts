// Tracked accounts counted per tag, platform and status (tag '' counts every account), kept by
// every writer of an account's status, tags or tracking in the writer's own transaction, so a
// count for any status, platform and tag filter is a sum of at most 14 rows.
import { sql, type Kysely } from 'kysely';
import { applyFollowerTotals } from './follower-totals-repo.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** The tag of the rows that count every account. */
export const ALL_ACCOUNTS = '';

/** Changes to the counts gathered during a transaction, written once at its end (applyCountChanges). */
export class CountChanges {
  readonly #deltas = new Map<string, { tag: string; platform: string; status: string; n: number }>();

  add(tag: string, platform: string, status: string, n: number): void {
    const key = JSON.stringify([tag, platform, status]);
    const entry = this.#deltas.get(key);
    if (entry) entry.n += n;
    else this.#deltas.set(key, { tag, platform, status, n });
  }

  readonly #followers = new Map<string, number>();

  /** The tracked accounts of `tag` ('' for all) gained `n` followers between them (storage/follower-totals-repo.ts). */
  addFollowers(tag: string, n: number): void {
    if (n !== 0) this.#followers.set(tag, (this.#followers.get(tag) ?? 0) + n);
  }

  /** The follower totals that change, in tag order. */
  followerRows(): { tag: string; n: number }[] {
    return [...this.#followers.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([tag, n]) => (n === 0 ? [] : [{ tag, n }]));
  }

  /** An account leaves one (platform, status) for another: its tags go with it. */
  move(platform: string, from: string, to: string, tags: readonly string[]): void {
    if (from === to) return;
    for (const tag of [ALL_ACCOUNTS, ...tags]) {
      this.add(tag, platform, from, -1);
      this.add(tag, platform, to, 1);
    }
  }

  /** The changes that are not zero, in key order. */
  rows(): { tag: string; platform: string; status: string; n: number }[] {
    // Any one order shared by every writer will do; the keys' own is at hand.
    return [...this.#deltas.keys()]
      .sort()
      .map((key) => this.#deltas.get(key)!)
      .filter((row) => row.n !== 0);
  }
}

/**
 * Adds the gathered changes in one statement. Call it once, near the end of the transaction: on
 * PostgreSQL the count rows stay locked until commit, and one statement taking them in key order
 * lets concurrent writers (tracker batches, imports, admin changes) wait for each other without
 * ever deadlocking.
 */
export async function applyCountChanges(db: Db, changes: CountChanges, now: number): Promise<void> {
  await applyFollowerTotals(db, changes.followerRows(), now);
  const rows = changes.rows();
  if (rows.length === 0) return;
  await db
    .insertInto('account_counts')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['tag', 'platform', 'status']).doUpdateSet({ n: sql<number>`account_counts.n + excluded.n` }),
    )
    .execute();
}

export interface CountFilter {
  status?: string | undefined;
  platform?: string | undefined;
  tag?: string | undefined;
}

/** Tracked accounts matching the filter (no prefix: that is counted from the index, accounts-list.ts). */
export async function countFromTable(db: Db, filter: CountFilter): Promise<number> {
  let query = db
    .selectFrom('account_counts')
    .select(sql<number | string | null>`sum(n)`.as('n'))
    .where('tag', '=', filter.tag ?? ALL_ACCOUNTS);
  if (filter.platform !== undefined) query = query.where('platform', '=', filter.platform);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Tracked accounts per platform and status (the Overview, health and metrics). */
export async function countsByPlatformAndStatus(db: Db): Promise<{ platform: string; status: string; n: number }[]> {
  const rows = await db
    .selectFrom('account_counts')
    .select(['platform', 'status', 'n'])
    .where('tag', '=', ALL_ACCOUNTS)
    .where('n', '<>', 0)
    .execute();
  return rows.map((r) => ({ platform: r.platform, status: r.status, n: Number(r.n) }));
}

/**
 * Counts everything again from the accounts and their tag rows, replacing what was kept: for
 * stores filled outside perch's writers (a bench's raw fill) or repaired by hand.
 */
export async function recountAccounts(db: Db): Promise<void> {
  await db.deleteFrom('account_counts').execute();
  await sql`insert into account_counts (tag, platform, status, n)
    select '', platform, status, count(*) from accounts where untracked_at is null group by platform, status`.execute(
    db,
  );
  await sql`insert into account_counts (tag, platform, status, n)
    select tag, platform, status, count(*) from account_tags group by tag, platform, status`.execute(db);
}

/** The tags that tracked accounts carry now, in order. */
export async function knownTags(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('account_counts')
    .select('tag')
    .distinct()
    .where('tag', '<>', ALL_ACCOUNTS)
    .where('n', '>', 0)
    .orderBy('tag')
    .execute();
  return rows.map((row) => row.tag);
}
