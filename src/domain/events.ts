// Which events a check produces: pure rules from an account before and after one check, and the
// little memory those rules keep per account (milestone floor, recent follower points, last spike).
import type { AccountStatus } from './account.ts';
import type { Platform } from './platforms.ts';

export const EVENT_TYPES = [
  'account.checked_first',
  'account.status_changed',
  'account.renamed',
  'account.followers_milestone',
  'account.followers_spike',
  'account.followers_changed',
  'account.posted',
  'post.deleted',
  'import.completed',
  'webhook.test',
  'alert.triggered',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const MILESTONES = [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000] as const;

const DAY_MS = 86_400_000;
/** A spike also needs this many followers of change, so tiny accounts do not spike at every follow. */
const SPIKE_MIN_CHANGE = 100;
/** Points kept per account for the spike window (one per half hour over 24 h). */
const MAX_POINTS = 48;

/** The short account carried in an event's `data.account`. */
export interface EventAccount {
  id: string;
  platform: Platform;
  username: string;
  platformUserId: string | null;
}

export interface NewEvent {
  type: EventType;
  accountId: number | null;
  account: EventAccount | null;
  data: Record<string, unknown>;
}

/** What the event rules remember of one account between checks. */
export interface EventMarks {
  /** The highest milestone already announced or behind the first observation (0: none). */
  milestoneFloor: number;
  /** [epoch ms, followers] of the checks of the last 24 h, oldest first. */
  points: [number, number][];
  /** When the last spike was announced, or null. */
  lastSpikeAt: number | null;
}

export interface CheckBefore {
  accountId: number;
  publicId: string;
  platform: Platform;
  username: string;
  platformUserId: string | null;
  status: AccountStatus;
}

export interface CheckAfter {
  status: AccountStatus;
  statusReason: string | null;
  username: string;
  platformUserId: string | null;
  /** Followers observed by this check, or null when the account was not seen. */
  followers: number | null;
  /** The rename this check recorded, if any. */
  renamedFrom: string | null;
}

export interface EventRules {
  spikePercent: number;
}

/** Admins cause these: moves into or out of them are not status changes worth announcing. */
const QUIET_STATUSES: readonly AccountStatus[] = ['paused', 'pending'];

/**
 * The events of one written check and the marks to keep. `marks` is null before the account's
 * first observation with followers: that observation is the baseline.
 */
export function decideCheckEvents(
  before: CheckBefore,
  after: CheckAfter,
  marks: EventMarks | null,
  now: number,
  rules: EventRules,
): { events: NewEvent[]; marks: EventMarks | null } {
  const account: EventAccount = {
    id: before.publicId,
    platform: before.platform,
    username: after.username,
    platformUserId: after.platformUserId,
  };
  const event = (type: EventType, data: Record<string, unknown> = {}): NewEvent => ({
    type,
    accountId: before.accountId,
    account,
    data,
  });
  const events: NewEvent[] = [];

  if (before.status === 'pending' && after.followers !== null)
    events.push(event('account.checked_first', { status: after.status }));
  if (
    before.status !== after.status &&
    !QUIET_STATUSES.includes(before.status) &&
    !QUIET_STATUSES.includes(after.status)
  ) {
    events.push(event('account.status_changed', { from: before.status, to: after.status, reason: after.statusReason }));
  }
  if (after.renamedFrom !== null)
    events.push(event('account.renamed', { from: after.renamedFrom, to: after.username }));
  if (after.followers === null) return { events, marks };

  const followers = after.followers;
  if (marks === null)
    return {
      events,
      marks: { milestoneFloor: milestoneAtOrBelow(followers), points: [[now, followers]], lastSpikeAt: null },
    };

  let milestoneFloor = marks.milestoneFloor;
  for (const milestone of MILESTONES) {
    if (milestone > milestoneFloor && followers >= milestone) {
      events.push(event('account.followers_milestone', { milestone, followers }));
      milestoneFloor = milestone;
    }
  }

  const recent = marks.points.filter(([at]) => now - at <= DAY_MS && at <= now);
  let lastSpikeAt = marks.lastSpikeAt;
  const spike =
    lastSpikeAt !== null && now - lastSpikeAt < DAY_MS ? null : findSpike(recent, followers, now, rules.spikePercent);
  if (spike) {
    events.push(event('account.followers_spike', { ...spike, followers }));
    lastSpikeAt = now;
  }
  // One point per half hour is enough to see a day's moves and keeps the row small at any interval.
  const last = recent.at(-1);
  const points =
    last !== undefined && now - last[0] < DAY_MS / MAX_POINTS
      ? recent
      : [...recent, [now, followers] as [number, number]].slice(-MAX_POINTS);
  return { events, marks: { milestoneFloor, points, lastSpikeAt } };
}

function milestoneAtOrBelow(followers: number): number {
  let floor = 0;
  for (const milestone of MILESTONES) if (followers >= milestone) floor = milestone;
  return floor;
}

/** The largest move from a point of the last 24 h that is a spike, or null. */
function findSpike(
  points: readonly [number, number][],
  followers: number,
  now: number,
  percent: number,
): { change: number; percent: number; windowHours: number } | null {
  let best: { change: number; percent: number; windowHours: number } | null = null;
  for (const [at, then] of points) {
    const change = followers - then;
    // From zero followers any gain is infinite in percent: measure it against one follower.
    const moved = (Math.abs(change) / Math.max(then, 1)) * 100;
    if (Math.abs(change) < SPIKE_MIN_CHANGE || moved < percent) continue;
    if (best === null || Math.abs(change) > Math.abs(best.change)) {
      best = {
        change,
        percent: Math.round(moved * 10) / 10,
        windowHours: Math.round(((now - at) / 3_600_000) * 10) / 10,
      };
    }
  }
  return best;
}

/** An endpoint's subscription matches an event: its types, and its tags (account events only). */
export function subscriptionMatches(
  subscription: { events: readonly string[]; tags: readonly string[] },
  type: EventType,
  accountTags: readonly string[] | null,
): boolean {
  if (type === 'webhook.test') return false;
  if (!subscription.events.includes('*') && !subscription.events.includes(type)) return false;
  if (subscription.tags.length === 0) return true;
  // A tag filter limits an endpoint to accounts with one of those tags; events without an account do not pass it.
  return accountTags !== null && accountTags.some((tag) => subscription.tags.includes(tag));
}
