// The compact follower history kept with each account: one point per UTC day, so that analysis
// reads one row instead of the metrics history table.

export const DAY_MS = 86_400_000;

/** `[epoch ms, followers]` points, oldest first. */
export type FollowerSeries = readonly (readonly [number, number])[];

/**
 * A new series with the observation `(at, followers)` added: one point per UTC day, the day's
 * latest observation replacing an earlier one of the same day (an older observation never
 * replaces a newer one), oldest first. Points are kept for the newest point's UTC day and the
 * `keepDays` days before it, so with the default 31 a point at or before "now − 30 days" exists
 * once the account has been tracked that long, whatever the hour of the checks. Points with a
 * time or value that is not a finite number are dropped; the input is never modified.
 */
export function followerSeriesAppend(
  series: FollowerSeries,
  at: number,
  followers: number,
  keepDays = 31,
): [number, number][] {
  const byDay = new Map<number, [number, number]>();
  const add = (time: number, value: number): void => {
    if (!Number.isFinite(time) || !Number.isFinite(value)) return;
    const day = Math.floor(time / DAY_MS);
    const current = byDay.get(day);
    if (current === undefined || time >= current[0]) byDay.set(day, [time, value]);
  };
  for (const [time, value] of series) add(time, value);
  add(at, followers);
  const days = [...byDay.keys()].sort((a, b) => a - b);
  const newest = days.at(-1);
  if (newest === undefined) return [];
  const firstKept = newest - Math.max(0, Math.floor(Number.isFinite(keepDays) ? keepDays : 0));
  const result: [number, number][] = [];
  for (const day of days) {
    const point = byDay.get(day);
    if (day >= firstKept && point !== undefined) result.push(point);
  }
  return result;
}

/**
 * The followers at the latest point at or before `time`, or null when the series has no such
 * point. The series need not be sorted; points that are not finite numbers are ignored.
 */
export function followersAtOrBefore(series: FollowerSeries, time: number): number | null {
  let bestTime = -Infinity;
  let best: number | null = null;
  for (const [pointTime, value] of series) {
    if (pointTime <= time && pointTime >= bestTime && Number.isFinite(pointTime) && Number.isFinite(value)) {
      bestTime = pointTime;
      best = value;
    }
  }
  return best;
}

/**
 * The followers gained since `span` ago, for the Overview's movers: only when a point at or before
 * that time is also no older than twice the span, so a change over a week is never called a day's.
 */
export function changeOver(series: FollowerSeries, now: number, followers: number, span: number): number | null {
  let bestTime = -Infinity;
  let best: number | null = null;
  for (const [pointTime, value] of series) {
    if (pointTime <= now - span && pointTime >= bestTime && Number.isFinite(value)) {
      bestTime = pointTime;
      best = value;
    }
  }
  return best === null || bestTime < now - 2 * span ? null : followers - best;
}
