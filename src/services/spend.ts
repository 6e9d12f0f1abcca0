// What X costs, as health, metrics, the usage report and the dashboard show it: the ledger's
// spend today and this month with its projection to month end, every budget meter with what is
// left, the daily history (CSV too), and what tracking newly imported accounts will add.
import type { Config } from '../config-shape.ts';
import type { Platform } from '../domain/platforms.ts';
import {
  estimateTracking,
  projectMonth,
  toUsd,
  totalOf,
  utcDay,
  utcMonth,
  type SpendRow,
  type TrackingEstimate,
} from '../domain/spend.ts';
import { spendPlans } from '../limits/spend-plan.ts';
import { firstSpendDay, spendRows } from '../storage/spend-repo.ts';
import type { Store } from '../storage/store.ts';
import { meterCounts } from '../storage/usage-repo.ts';

const DAY_MS = 86_400_000;
/** Posts asked for in a first timeline read (trackerSettings' postsPerFetch). */
const FIRST_READ_POSTS = 100;

export interface SpendTotals {
  users: number;
  posts: number;
  usd: number;
}

export interface BudgetState {
  name: string;
  period: 'day' | 'month';
  unit: 'reads' | 'usd' | 'posts';
  limit: number;
  used: number;
  remaining: number;
}

export interface SpendSummary {
  platform: 'x';
  today: SpendTotals & { day: string };
  month: SpendTotals & { month: string };
  /** This month's spend plus the recent pace for the days left; null before any spend. */
  projectedMonthUsd: number | null;
  budgets: BudgetState[];
  rateCard: { userUsd: number; postUsd: number };
}

const totals = (rows: readonly SpendRow[]): SpendTotals => {
  const t = totalOf(rows);
  return { users: t.users, posts: t.posts, usd: toUsd(t.micros) };
};

/** X's spend as of `now`, read from the ledger and the budget meters (a handful of small rows). */
export async function readSpend(store: Store, config: Config, now: number): Promise<SpendSummary> {
  const day = utcDay(now);
  const month = utcMonth(now);
  const plan = spendPlans(config).x;
  const [rows, first, counts] = await Promise.all([
    spendRows(store.reader, {
      from: utcDay(Math.min(Date.parse(`${month}-01T00:00:00Z`), now - 7 * DAY_MS)),
      to: day,
      platform: 'x',
    }),
    firstSpendDay(store.reader, 'x'),
    meterCounts(store.reader, [...new Set(plan.meters.map((m) => m.name))], [day, month]),
  ]);
  const projected = projectMonth(rows, now, first);
  return {
    platform: 'x',
    today: { day, ...totals(rows.filter((r) => r.day === day)) },
    month: { month, ...totals(rows.filter((r) => r.day.startsWith(month))) },
    projectedMonthUsd: projected === null ? null : toUsd(projected),
    budgets: plan.meters.map((m) => {
      const used = Math.max(0, counts.get(`${m.name}@${m.period === 'day' ? day : month}`) ?? 0);
      const unit = m.name.endsWith(':usd') ? 'usd' : m.name.endsWith(':posts') ? 'posts' : 'reads';
      const scale = (n: number) => (unit === 'usd' ? toUsd(n) : n);
      return {
        name: m.label,
        period: m.period,
        unit,
        limit: scale(m.limit),
        used: scale(used),
        remaining: scale(Math.max(0, m.limit - used)),
      };
    }),
    rateCard: rateCard(config),
  };
}

/** X's prices per resource, in dollars. */
export function rateCard(config: Config): { userUsd: number; postUsd: number } {
  return { userUsd: toUsd(config.xRateCard.users), postUsd: toUsd(config.xRateCard.posts) };
}

export interface UsageDay {
  day: string;
  platform: Platform;
  kind: 'users' | 'posts';
  resources: number;
  usd: number;
}

/** The ledger's days from `from` to `to` (inclusive), optionally of one platform. */
export async function usageHistory(
  store: Store,
  range: { from: string; to: string; platform?: Platform | undefined },
): Promise<UsageDay[]> {
  const rows = await spendRows(store.reader, range);
  return rows.map((r) => ({
    day: r.day,
    platform: r.platform,
    kind: r.kind,
    resources: r.resources,
    usd: toUsd(r.micros),
  }));
}

/** The usage report as CSV: a header, then one line per day, platform and kind. */
export function usageCsv(days: readonly UsageDay[]): string {
  return [
    'day,platform,kind,resources,usd',
    ...days.map((d) => `${d.day},${d.platform},${d.kind},${d.resources},${d.usd}`),
  ]
    .join('\n')
    .concat('\n');
}

/** What tracking the accounts an import added will cost, per platform that received any. */
export function importEstimate(config: Config, added: Partial<Record<Platform, number>>): TrackingEstimate[] {
  const plans = spendPlans(config);
  return (Object.entries(added) as [Platform, number][])
    .filter(([, n]) => n > 0)
    .map(([platform, n]) =>
      estimateTracking(platform, n, plans[platform].card, config.trackIntervalMs, FIRST_READ_POSTS),
    );
}

/** What tracking the accounts an import added costs, at the rate card it was priced with. */
export interface ImportEstimate {
  rateCard: { userUsd: number; postUsd: number };
  platforms: TrackingEstimate[];
}

/**
 * The estimate an import's answer carries: the accounts it added (inserted or reactivated) split by
 * platform in the proportion of the file's accepted rows.
 */
export function estimateForImport(
  config: Config,
  rows: readonly { platform: Platform }[],
  added: number,
): ImportEstimate {
  const byPlatform: Partial<Record<Platform, number>> = {};
  for (const row of rows) byPlatform[row.platform] = (byPlatform[row.platform] ?? 0) + 1;
  const share: Partial<Record<Platform, number>> = {};
  for (const [platform, n] of Object.entries(byPlatform) as [Platform, number][])
    share[platform] = rows.length === 0 ? 0 : Math.round((added * n) / rows.length);
  return { rateCard: rateCard(config), platforms: importEstimate(config, share) };
}
