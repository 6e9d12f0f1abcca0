// What the alert rules of a batch read and decide per account (DESIGN §12). History is read once
// per batch for all rules: per distinct window, the latest snapshot just before its start (one
// query for every account asking that window); a followers anomaly uses the daily series the
// account row already holds; an anomaly on posts or following reads a month of snapshots; silence
// reads the newest post only when the check did not see one. Each distinct (metric, condition) is
// then decided once per account (the account's plan lists each once) and the decision shared by
// every rule asking it.
import {
  evaluateCondition,
  historyNeeded,
  type AlertFinding,
  type AlertSubject,
  type Points,
} from '../domain/alert-conditions.ts';
import type { AlertCondition, AlertMetric } from '../domain/alert-rules.ts';
import { latestSnapshotsIn, type BaselineSnapshot } from '../storage/alert-history-repo.ts';
import { snapshotsSince } from '../storage/history-repo.ts';
import { lastPostTimes } from '../storage/posts-repo.ts';
import type { Executor } from '../storage/store.ts';
import type { AskedQuestion, ScopePlan } from './alert-rulebook.ts';

/** One account of the batch as its rules see it. */
export interface AccountAlertState {
  id: number;
  subject: AlertSubject;
  /** The questions its rules ask. */
  plan: ScopePlan;
  /** The baseline snapshot of each window asked (by hours), null when there is none. */
  windows: Map<number, BaselineSnapshot | null>;
  /** A month of observations, for an anomaly on posts or following. */
  month: Partial<Record<AlertMetric, Points>>;
}

export type Decision = { ok: true; finding: AlertFinding | null } | { ok: false; error: unknown };
/** The decision of most questions at most checks, shared. */
const HOLDS_NOT: Decision = Object.freeze({ ok: true, finding: null });

export function accountAlertState(id: number, subject: AlertSubject, plan: ScopePlan): AccountAlertState {
  return { id, subject, plan, windows: new Map(), month: {} };
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const SNAPSHOT_METRICS = ['followers', 'following', 'posts'] as const;
type SnapshotMetric = (typeof SNAPSHOT_METRICS)[number];
const isSnapshotMetric = (m: AlertMetric): m is SnapshotMetric => (SNAPSHOT_METRICS as readonly string[]).includes(m);

/** Reads, for the accounts, the history the questions of their rules need. */
export async function readAlertHistory(
  trx: Executor,
  states: readonly AccountAlertState[],
  now: number,
  settings: { intervalMs: number; historyBucketMs: number },
): Promise<void> {
  const windows = new Map<number, Set<AccountAlertState>>();
  const month = new Set<AccountAlertState>();
  const quiet = new Set<AccountAlertState>();
  for (const state of states)
    for (const { metric, condition } of state.plan.questions) {
      if ('quietDays' in condition) {
        if (state.subject.lastPostAt === null) quiet.add(state);
      } else if ('changePercent' in condition) {
        if (!state.windows.has(condition.windowHours)) {
          state.windows.set(condition.windowHours, null);
          const list = windows.get(condition.windowHours) ?? new Set();
          windows.set(condition.windowHours, list.add(state));
        }
      } else if ('anomaly' in condition && metric !== 'followers' && isSnapshotMetric(metric)) month.add(state);
    }
  if (quiet.size > 0) {
    const byId = new Map([...quiet].map((s) => [s.id, s]));
    for (const [id, at] of await lastPostTimes(trx, [...byId.keys()])) {
      const state = byId.get(id);
      if (state) state.subject.lastPostAt = at;
    }
  }
  for (const [hours, states] of windows) {
    const span = historyNeeded({ changePercent: 1, windowHours: hours }, settings.intervalMs);
    if (span === null) continue;
    const byId = new Map([...states].map((s) => [s.id, s]));
    const found = await latestSnapshotsIn(
      trx,
      [...byId.keys()],
      now - span.fromMs,
      now - span.toMs,
      settings.historyBucketMs,
    );
    for (const [id, snapshot] of found) byId.get(id)?.windows.set(hours, snapshot);
  }
  if (month.size > 0) {
    const byId = new Map([...month].map((s) => [s.id, s]));
    const from = now - (historyNeeded({ anomaly: { sensitivity: 3 } }, 0)?.fromMs ?? 32 * DAY_MS);
    for (const [id, list] of await snapshotsSince(trx, [...byId.keys()], from, now)) {
      const state = byId.get(id);
      if (!state) continue;
      state.month = {
        following: list.map((s) => [s.observedAt, s.following] as const),
        posts: list.map((s) => [s.observedAt, s.posts] as const),
      };
    }
  }
}

/** The history one question reads: the window's baseline, the daily series or the month. */
function historyFor(state: AccountAlertState, metric: AlertMetric, condition: AlertCondition, now: number): Points {
  const series = metric === 'followers' ? (state.subject.history.followers ?? []) : [];
  if ('changePercent' in condition) {
    const baseline = state.windows.get(condition.windowHours);
    if (!baseline || !isSnapshotMetric(metric)) return series;
    // The window's start is compared with the latest point at or before it: the baseline, or a
    // later daily point of the series (found here, so the series is not copied per question).
    const start = now - condition.windowHours * HOUR_MS;
    let daily: Points[number] | undefined;
    for (const point of series)
      if (point[0] <= start && Number.isFinite(point[1]) && (daily === undefined || point[0] >= daily[0]))
        daily = point;
    const own = [baseline.observedAt, baseline[metric]] as const;
    return daily ? [daily, own] : [own];
  }
  if ('anomaly' in condition) return metric === 'followers' ? series : (state.month[metric] ?? []);
  return [];
}

/** The decision of one question for one account, shared by the rules asking it. */
export function decide(state: AccountAlertState, { metric, condition }: AskedQuestion, now: number): Decision {
  try {
    // Levels and silence read no history: the account's subject as it is.
    const subject: AlertSubject =
      'changePercent' in condition || 'anomaly' in condition
        ? { ...state.subject, history: { [metric]: historyFor(state, metric, condition, now) } }
        : state.subject;
    const finding = evaluateCondition(metric, condition, subject, now);
    return finding === null ? HOLDS_NOT : { ok: true, finding };
  } catch (error) {
    return { ok: false, error };
  }
}
