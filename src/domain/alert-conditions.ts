// Whether an alert rule's condition holds for one account just checked: levels, a change over a
// window, an anomaly (the day's change as a z-score against the last 30 days' daily changes) and
// silence. Pure: the tracker hands in the values and the history the condition asks for.
import type { AlertCondition, AlertMetric } from './alert-rules.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Daily changes needed before an anomaly can be told from noise. */
export const ANOMALY_MIN_DAYS = 7;
export const ANOMALY_BASELINE_DAYS = 30;
/** |z| at or above which the day is an anomaly, by sensitivity 1–5 (higher fires earlier). */
export const ANOMALY_Z = [4, 3.5, 3, 2.5, 2] as const;
/** A perfectly steady baseline still has this much spread (one follower a day), so z stays finite. */
const MIN_SPREAD = 1;

/** `[epoch ms, value]`, any order. */
export type Points = readonly (readonly [number, number])[];

/** What one check knows about an account, for its rules. */
export interface AlertSubject {
  values: Partial<Record<AlertMetric, number | null>>;
  /** Newest own post, or null when none is known. */
  lastPostAt: number | null;
  /** Earlier observations per metric (the current one included or not: the newest wins). */
  history: Partial<Record<AlertMetric, Points>>;
}

/** What a firing says (the `alert.triggered` event's data besides the rule and the account). */
export interface AlertFinding {
  metric: AlertMetric;
  value: number;
  threshold?: number;
  baseline?: number;
  windowHours?: number;
  change?: number;
  changePercent?: number;
  zScore?: number;
}

/**
 * The span of history `[now - from, now - to]` a condition reads, or null when it needs none. A
 * window reads only around its start (`slackMs` before it: the checks' interval, so one check at
 * least is in it), so a check reads a few snapshots per account, not the whole window.
 */
export function historyNeeded(condition: AlertCondition, slackMs: number): { fromMs: number; toMs: number } | null {
  if ('changePercent' in condition) {
    const window = condition.windowHours * HOUR_MS;
    return { fromMs: window + Math.max(slackMs, 2 * HOUR_MS), toMs: window };
  }
  if ('anomaly' in condition) return { fromMs: (ANOMALY_BASELINE_DAYS + 2) * DAY_MS, toMs: 0 };
  return null;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The finding when `condition` holds for the subject now, else null. */
export function evaluateCondition(
  metric: AlertMetric,
  condition: AlertCondition,
  subject: AlertSubject,
  now: number,
): AlertFinding | null {
  if ('quietDays' in condition) {
    if (subject.lastPostAt === null) return null;
    const days = (now - subject.lastPostAt) / DAY_MS;
    return days >= condition.quietDays
      ? { metric: 'posts', value: round(days, 1), threshold: condition.quietDays }
      : null;
  }
  const value = subject.values[metric];
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  if ('above' in condition) return value > condition.above ? { metric, value, threshold: condition.above } : null;
  if ('below' in condition) return value < condition.below ? { metric, value, threshold: condition.below } : null;
  const history = subject.history[metric] ?? [];
  if ('changePercent' in condition) {
    const then = latestAtOrBefore(history, now - condition.windowHours * HOUR_MS);
    if (then === null || then === 0) return null;
    const percent = ((value - then) / Math.abs(then)) * 100;
    const fires = condition.changePercent > 0 ? percent >= condition.changePercent : percent <= condition.changePercent;
    return fires
      ? {
          metric,
          value,
          threshold: condition.changePercent,
          baseline: then,
          windowHours: condition.windowHours,
          change: value - then,
          changePercent: round(percent),
        }
      : null;
  }
  const score = anomalyScore(history, now, value);
  if (score === null) return null;
  const limit = ANOMALY_Z[condition.anomaly.sensitivity - 1] ?? 3;
  return Math.abs(score.z) >= limit
    ? { metric, value, baseline: round(score.mean), change: score.change, zScore: round(score.z), windowHours: 24 }
    : null;
}

function latestAtOrBefore(points: Points, time: number): number | null {
  let bestAt = -Infinity;
  let best: number | null = null;
  for (const [at, value] of points)
    if (at <= time && at >= bestAt && Number.isFinite(value)) {
      bestAt = at;
      best = value;
    }
  return best;
}

/**
 * The day's change (now against the last value of an earlier UTC day) and its z-score against
 * the daily changes of the 30 days before, each per day so that a missed day does not look like
 * a jump; null with fewer than ANOMALY_MIN_DAYS of them.
 */
export function anomalyScore(points: Points, now: number, value: number): AnomalyScore | null {
  // The last point of each UTC day of the window, by the day's place in it (no sort, no map: a
  // check weighs this for every account with an anomaly rule; rules asking the same question of
  // an account share one decision, tracker/alert-history.ts).
  const today = Math.floor(now / DAY_MS);
  const firstDay = today - ANOMALY_BASELINE_DAYS - 1;
  const span = today - firstDay;
  const at = new Float64Array(span).fill(-Infinity);
  const values = new Float64Array(span);
  for (const [time, v] of points) {
    const slot = Math.floor(time / DAY_MS) - firstDay;
    if (!Number.isFinite(v) || slot < 0 || slot >= span || time < (at[slot] ?? 0)) continue;
    at[slot] = time;
    values[slot] = v;
  }
  const changes: number[] = [];
  let last = -1;
  for (let slot = 0; slot < span; slot += 1) {
    if (at[slot] === -Infinity) continue;
    if (last >= 0) changes.push(((values[slot] ?? 0) - (values[last] ?? 0)) / (slot - last));
    last = slot;
  }
  if (last < 0) return null;
  if (changes.length < ANOMALY_MIN_DAYS) return null;
  const mean = changes.reduce((a, b) => a + b, 0) / changes.length;
  const spread = Math.sqrt(changes.reduce((a, b) => a + (b - mean) ** 2, 0) / changes.length);
  const lastValue = values[last] ?? 0;
  const change = (value - lastValue) / (span - last);
  return { change: value - lastValue, mean, z: (change - mean) / Math.max(spread, MIN_SPREAD) };
}

type AnomalyScore = { change: number; mean: number; z: number };
