// What reading a platform costs: X bills pay-per-use, each resource returned priced by its kind,
// a resource read again within the same UTC day not billed again; Bluesky is free. Money is kept
// in micro-dollars (whole numbers), so sums in the store never drift.
import type { Platform } from './platforms.ts';

export type ResourceKind = 'users' | 'posts';
export const RESOURCE_KINDS: readonly ResourceKind[] = ['users', 'posts'];

/** Micro-dollars per resource returned, by kind. */
export type RateCard = Readonly<Record<ResourceKind, number>>;

export const MICROS_PER_USD = 1_000_000;
/** X's pay-per-use rates as published in April 2026: $0.010 per user read, $0.005 per post read. */
export const X_RATES_APRIL_2026: RateCard = { users: 10_000, posts: 5_000 };
export const FREE: RateCard = { users: 0, posts: 0 };

export const toMicros = (usd: number): number => Math.round(usd * MICROS_PER_USD);
/** Dollars of micro-dollars. */
export const toUsd = (micros: number): number => micros / MICROS_PER_USD;

const DAY_MS = 86_400_000;

/** UTC day of an epoch-ms time, as YYYY-MM-DD: X's billing day. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** UTC month of an epoch-ms time, as YYYY-MM. */
export const utcMonth = (ms: number): string => new Date(ms).toISOString().slice(0, 7);

/** Start of the UTC month of `ms` and of the next one. */
export function monthBounds(ms: number): { start: number; end: number } {
  const d = new Date(ms);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

/** The UTC days from `from` to `to` inclusive (YYYY-MM-DD), oldest first. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) days.push(utcDay(t));
  return days;
}

/** One row of the ledger: what a platform returned of one kind on one UTC day, and what X bills for it. */
export interface SpendRow {
  day: string;
  platform: Platform;
  kind: ResourceKind;
  resources: number;
  micros: number;
}

export interface SpendTotal {
  users: number;
  posts: number;
  micros: number;
}

export function totalOf(rows: readonly SpendRow[]): SpendTotal {
  const total = { users: 0, posts: 0, micros: 0 };
  for (const row of rows) {
    total[row.kind] += row.resources;
    total.micros += row.micros;
  }
  return total;
}

/**
 * Spend projected to the end of the month of `now`: what the month has spent, plus the pace of the
 * days behind us (up to the last 7, today's part included, only days since the ledger's first) for
 * the time left. Null before anything was recorded this month and the week before.
 */
export function projectMonth(rows: readonly SpendRow[], now: number, firstDay: string | null): number | null {
  const { end } = monthBounds(now);
  const month = utcMonth(now);
  const monthMicros = rows.filter((r) => r.day.startsWith(month)).reduce((s, r) => s + r.micros, 0);
  const windowStart = Math.max(
    Date.parse(`${utcDay(now - 7 * DAY_MS)}T00:00:00Z`),
    firstDay === null ? now : Date.parse(`${firstDay}T00:00:00Z`),
  );
  const elapsed = now - windowStart;
  if (firstDay === null || elapsed <= 0) return monthMicros === 0 ? null : monthMicros;
  const windowMicros = rows
    .filter((r) => Date.parse(`${r.day}T00:00:00Z`) >= windowStart)
    .reduce((s, r) => s + r.micros, 0);
  // Less than an hour of history says little about a day: count at least an hour.
  const pace = windowMicros / Math.max(elapsed, 3_600_000);
  return Math.round(monthMicros + pace * Math.max(0, end - now));
}

/** What tracking `accounts` more accounts adds, at one check per `intervalMs`. */
export interface TrackingEstimate {
  platform: Platform;
  accounts: number;
  /** Profile reads: X bills a user once per UTC day however often it is checked that day. */
  perDayUsd: number;
  perMonthUsd: number;
  /** At most, once: the first timeline read of each account (`postsPerFetch` posts). */
  firstReadUsd: number;
}

export function estimateTracking(
  platform: Platform,
  accounts: number,
  card: RateCard,
  intervalMs: number,
  postsPerFetch: number,
): TrackingEstimate {
  const billedDaysPerDay = Math.min(1, DAY_MS / intervalMs);
  const perDay = accounts * card.users * billedDaysPerDay;
  return {
    platform,
    accounts,
    perDayUsd: toUsd(Math.round(perDay)),
    perMonthUsd: toUsd(Math.round(perDay * 30)),
    firstReadUsd: toUsd(accounts * postsPerFetch * card.posts),
  };
}
