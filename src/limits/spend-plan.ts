// The budget meters and rate card of each platform, from the configuration: X bills every resource
// returned, so its reads are metered per UTC day (X_DAILY_READ_BUDGET), its dollars per UTC day and
// month when budgets are set, and its post reads per month (X's cap); Bluesky is free and unmetered.
import type { Config } from '../config-shape.ts';
import type { Platform } from '../domain/platforms.ts';
import { FREE, toMicros, type RateCard } from '../domain/spend.ts';
import type { Meter } from './spend-budget.ts';

export interface SpendPlan {
  meters: Meter[];
  card: RateCard;
}

/** The meter of X's reads per day keeps the row name of the read budget it replaces (`x`). */
export const READ_METER_LABEL = 'daily read budget';

export function spendPlans(config: Config): Record<Platform, SpendPlan> {
  const card = config.xRateCard;
  const meters: Meter[] = [
    {
      name: 'x',
      period: 'day',
      limit: config.xDailyReadBudget,
      units: { users: 1, posts: 1 },
      label: READ_METER_LABEL,
    },
    {
      name: 'x:posts',
      period: 'month',
      limit: config.xMonthlyPostCap,
      units: { users: 0, posts: 1 },
      label: 'monthly post-read cap',
    },
  ];
  if (config.xDailyBudgetUsd !== null)
    meters.push({
      name: 'x:usd',
      period: 'day',
      limit: toMicros(config.xDailyBudgetUsd),
      units: card,
      label: 'daily dollar budget',
    });
  if (config.xMonthlyBudgetUsd !== null)
    meters.push({
      name: 'x:usd',
      period: 'month',
      limit: toMicros(config.xMonthlyBudgetUsd),
      units: card,
      label: 'monthly dollar budget',
    });
  return { x: { meters, card }, bluesky: { meters: [], card: FREE } };
}
