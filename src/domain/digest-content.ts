// What a digest says, computed from the figures the store read (pure): per account the period
// against the one before (followers, % growth, posts, engagement), the totals, the top movers up
// and down, and the period's events and alerts as sentences. Renderers (digest-html.ts,
// digest-text.ts) only lay it out.
import { eventSentence, type Sentence } from './event-sentences.ts';

/** One account's figures at the three edges of the two periods, as the store read them. */
export interface DigestAccountFigures {
  id: number;
  platform: string;
  username: string;
  /** Followers / the platform's post count at each edge (the last snapshot at or before it), or null. */
  followers: { previousStart: number | null; start: number | null; end: number | null };
  posts: { previousStart: number | null; start: number | null; end: number | null };
  /** Likes, reposts, replies and quotes on the posts made in the period / in the one before. */
  engagement: number;
  previousEngagement: number;
}

export interface DigestEvent {
  type: string;
  createdAt: number;
  data: unknown;
}

export interface DigestRow {
  platform: string;
  username: string;
  followers: number | null;
  change: number | null;
  previousChange: number | null;
  /** % growth over the period, one decimal; null without a start figure (or from 0). */
  growth: number | null;
  posts: number | null;
  previousPosts: number | null;
  engagement: number;
  previousEngagement: number;
}

export interface DigestContent {
  name: string;
  period: string;
  late: boolean;
  accounts: number;
  totals: Omit<DigestRow, 'platform' | 'username'>;
  /** The accounts with the most followers, at most ROWS_SHOWN; `more` are left out of the table. */
  rows: DigestRow[];
  more: number;
  gainers: DigestRow[];
  losers: DigestRow[];
  events: { at: number; sentence: Sentence }[];
  alerts: { at: number; sentence: Sentence }[];
  /** Events of the period beyond those shown. */
  moreEvents: number;
}

export const ROWS_SHOWN = 200;
export const MOVERS_SHOWN = 5;
export const EVENTS_SHOWN = 50;

const diff = (to: number | null, from: number | null) => (to === null || from === null ? null : to - from);
const growth = (change: number | null, from: number | null) =>
  change === null || from === null || from === 0 ? null : Math.round((change / from) * 1000) / 10;

export function digestRow(a: DigestAccountFigures): DigestRow {
  const change = diff(a.followers.end, a.followers.start);
  const postsMade = diff(a.posts.end, a.posts.start);
  return {
    platform: a.platform,
    username: a.username,
    followers: a.followers.end,
    change,
    previousChange: diff(a.followers.start, a.followers.previousStart),
    growth: growth(change, a.followers.start),
    // A platform's count can drop (deleted posts): posts made are never fewer than none.
    posts: postsMade === null ? null : Math.max(0, postsMade),
    previousPosts: ((p) => (p === null ? null : Math.max(0, p)))(diff(a.posts.start, a.posts.previousStart)),
    engagement: a.engagement,
    previousEngagement: a.previousEngagement,
  };
}

const sum = (rows: readonly DigestRow[], pick: (r: DigestRow) => number | null): number | null => {
  let total: number | null = null;
  for (const row of rows) {
    const v = pick(row);
    if (v !== null) total = (total ?? 0) + v;
  }
  return total;
};

export interface DigestInput {
  name: string;
  period: string;
  late: boolean;
  accounts: readonly DigestAccountFigures[];
  /** The period's events of the scope's accounts, newest first (the store caps them). */
  events: readonly DigestEvent[];
  /** How many events the period had in all, when the store cut the list. */
  eventTotal: number;
}

export function buildDigest(input: DigestInput): DigestContent {
  const rows = input.accounts.map(digestRow);
  const byFollowers = [...rows].sort(
    (a, b) => (b.followers ?? -1) - (a.followers ?? -1) || a.username.localeCompare(b.username),
  );
  const moved = rows.filter((r) => r.change !== null && r.change !== 0);
  const gainers = moved
    .filter((r) => (r.change ?? 0) > 0)
    .sort((a, b) => (b.change ?? 0) - (a.change ?? 0) || a.username.localeCompare(b.username))
    .slice(0, MOVERS_SHOWN);
  const losers = moved
    .filter((r) => (r.change ?? 0) < 0)
    .sort((a, b) => (a.change ?? 0) - (b.change ?? 0) || a.username.localeCompare(b.username))
    .slice(0, MOVERS_SHOWN);
  const followers = sum(rows, (r) => r.followers);
  const change = sum(rows, (r) => r.change);
  const startTotal = sum(rows, (r) => (r.followers === null || r.change === null ? null : r.followers - r.change));
  const shown = input.events.slice(0, EVENTS_SHOWN);
  const said = (e: DigestEvent) => ({ at: e.createdAt, sentence: eventSentence(e) });
  return {
    name: input.name,
    period: input.period,
    late: input.late,
    accounts: rows.length,
    totals: {
      followers,
      change,
      previousChange: sum(rows, (r) => r.previousChange),
      growth: growth(change, startTotal),
      posts: sum(rows, (r) => r.posts),
      previousPosts: sum(rows, (r) => r.previousPosts),
      engagement: sum(rows, (r) => r.engagement) ?? 0,
      previousEngagement: sum(rows, (r) => r.previousEngagement) ?? 0,
    },
    rows: byFollowers.slice(0, ROWS_SHOWN),
    more: Math.max(0, rows.length - ROWS_SHOWN),
    gainers,
    losers,
    events: shown.filter((e) => e.type !== 'alert.triggered').map(said),
    alerts: shown.filter((e) => e.type === 'alert.triggered').map(said),
    moreEvents: Math.max(0, input.eventTotal - shown.length),
  };
}
