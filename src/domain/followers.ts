// Follower identities (DESIGN §11): what a page of a platform's follower list holds, what a closed
// pass found changed, and the event that announces it (at most SAMPLE identities each way).
import type { EventAccount, NewEvent } from './events.ts';
import type { Platform } from './platforms.ts';
import { toUsd, type RateCard } from './spend.ts';

/** One follower as a platform's follower page lists it. */
export interface FollowerIdentity {
  platformUserId: string;
  username: string;
}

/** Identities carried by an event or a pass summary, each way. */
export const FOLLOWER_SAMPLE = 100;
/** At most one `account.followers_changed` per account per this. */
export const FOLLOWER_EVENT_GAP_MS = 60_000;
/**
 * How long live changes wait for their gained followers' names (a follow frame names the follower
 * by DID only; the next follower round asks the platform, at most a minute later), so the event
 * says who followed. Past it they go out as they are.
 */
export const FOLLOWER_NAME_WAIT_MS = 150_000;

/** What closing a pass changed. */
export interface FollowerDiff {
  gained: FollowerIdentity[];
  lost: FollowerIdentity[];
  gainedCount: number;
  lostCount: number;
  /** Current followers after the pass. */
  followers: number;
  /** The account's first finished pass: what it found is the baseline, not news. */
  baseline: boolean;
}

/** The event of a closed pass or of live follows, or null when nothing is news. */
export function followersChangedEvent(
  accountId: number,
  account: EventAccount,
  diff: Omit<FollowerDiff, 'followers'>,
  via: 'poll' | 'stream',
): NewEvent | null {
  if (diff.baseline || (diff.gainedCount === 0 && diff.lostCount === 0)) return null;
  return {
    type: 'account.followers_changed',
    accountId,
    account,
    data: {
      gained: diff.gained.slice(0, FOLLOWER_SAMPLE),
      lost: diff.lost.slice(0, FOLLOWER_SAMPLE),
      gainedCount: diff.gainedCount,
      lostCount: diff.lostCount,
      via,
    },
  };
}

/** Keeps the first of each id (a platform may list a follower twice across a page). */
export function distinctFollowers(page: readonly FollowerIdentity[]): FollowerIdentity[] {
  const seen = new Map<string, FollowerIdentity>();
  for (const f of page) if (!seen.has(f.platformUserId)) seen.set(f.platformUserId, f);
  return [...seen.values()];
}

/** What one full pass costs: X bills each user a follower page returns. */
export interface FollowerPassCost {
  followers: number;
  /** Follower pages (requests) one pass takes. */
  pages: number;
  usd: number;
  /** At one pass per interval, over 30 days. */
  perMonthUsd: number;
}

export function followerPassCost(
  followers: number,
  pageSize: number,
  card: RateCard,
  intervalMs: number,
): FollowerPassCost {
  const pages = Math.max(1, Math.ceil(followers / pageSize));
  const micros = followers * card.users;
  const passesPerMonth = (30 * 86_400_000) / intervalMs;
  return {
    followers,
    pages,
    usd: toUsd(micros),
    perMonthUsd: Math.round(toUsd(micros) * passesPerMonth * 100) / 100,
  };
}

/** Where a follower's profile is on its platform. */
export function followerProfileUrl(platform: Platform, username: string): string {
  return platform === 'x'
    ? `https://x.com/${encodeURIComponent(username)}`
    : `https://bsky.app/profile/${encodeURIComponent(username)}`;
}
