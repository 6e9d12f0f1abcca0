// The tables that serve the account list's filters (migration 010) as Kysely sees them; part of `Database`.

/** One row per tag of a tracked account, carrying the account's filter and sort columns. */
export interface AccountTagsTable {
  account_id: number;
  tag: string;
  platform: string;
  status: string;
  username_key: string;
  /** The list's sort values as accounts-list.ts computes them (missing numbers last). */
  sort_followers: number;
  sort_growth: number;
  sort_checked: number;
}

/** Tracked accounts per tag ('' counts every account), platform and status. */
export interface AccountCountsTable {
  tag: string;
  platform: string;
  status: string;
  n: number;
}

/** Total followers of the tracked accounts ('' for all, else a tag) as they stood at the end of a UTC day. */
export interface FollowerTotalsTable {
  tag: string;
  /** YYYY-MM-DD (UTC). A day without a row kept the total of the day before. */
  day: string;
  total: number;
}

export interface FilterTables {
  account_tags: AccountTagsTable;
  account_counts: AccountCountsTable;
  follower_totals: FollowerTotalsTable;
}
