// When a digest goes out (DESIGN §12): daily or weekly (Mondays) at a local time in a named time
// zone, DST-aware through luxon: "08:00 Europe/Paris" is 07:00 UTC in winter and 06:00 in summer,
// and a day across a DST change is 23 or 25 hours long. A period ends at a send time and starts
// at the one before; the digest compares it with the period before that.
import { DateTime, IANAZone } from 'luxon';

export const DIGEST_SCHEDULES = ['daily', 'weekly'] as const;
export type DigestSchedule = (typeof DIGEST_SCHEDULES)[number];

export interface DigestTiming {
  schedule: DigestSchedule;
  /** Local time "HH:MM" (24 h). */
  at: string;
  timeZone: string;
}

export interface DigestPeriod {
  /** Epoch ms: the period covered is [start, end); the one compared with is [previousStart, start). */
  previousStart: number;
  start: number;
  end: number;
}

const AT = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function isLocalTime(at: string): boolean {
  return AT.test(at);
}

/** An IANA zone name luxon (and so the platform's ICU data) knows, such as Europe/Paris. */
export function isTimeZone(name: string): boolean {
  return name.length <= 64 && name.includes('/') && IANAZone.isValidZone(name);
}

function stepOf(schedule: DigestSchedule) {
  return schedule === 'daily' ? { days: 1 } : { weeks: 1 };
}

/** The latest send time at or before `now` (epoch ms). */
export function lastSendAt(timing: DigestTiming, now: number): number {
  const match = AT.exec(timing.at);
  const hour = Number(match?.[1] ?? 8);
  const minute = Number(match?.[2] ?? 0);
  const local = DateTime.fromMillis(now, { zone: timing.timeZone });
  let at = local.set({ hour, minute, second: 0, millisecond: 0 });
  if (timing.schedule === 'weekly') at = at.minus({ days: at.weekday - 1 });
  // Stepping in local calendar units keeps the wall-clock time across a DST change.
  while (at.toMillis() > now) at = at.minus(stepOf(timing.schedule)).set({ hour, minute });
  return at.toMillis();
}

/** The next send time strictly after `now`. */
export function nextSendAt(timing: DigestTiming, now: number): number {
  const last = DateTime.fromMillis(lastSendAt(timing, now), { zone: timing.timeZone });
  const match = AT.exec(timing.at);
  return last
    .plus(stepOf(timing.schedule))
    .set({ hour: Number(match?.[1] ?? 8), minute: Number(match?.[2] ?? 0) })
    .toMillis();
}

/** The period that ends at the send time `end`, and the one before it. */
export function periodEndingAt(timing: DigestTiming, end: number): DigestPeriod {
  const step = stepOf(timing.schedule);
  const endAt = DateTime.fromMillis(end, { zone: timing.timeZone });
  const start = endAt.minus(step);
  return { previousStart: start.minus(step).toMillis(), start: start.toMillis(), end };
}

/** How the period reads in the digest: "Tue 3 Nov 08:00 – Wed 4 Nov 08:00 (Europe/Paris)". */
export function periodLabel(timing: DigestTiming, period: DigestPeriod): string {
  const fmt = (ms: number) =>
    DateTime.fromMillis(ms, { zone: timing.timeZone }).toFormat('ccc d LLL yyyy HH:mm', { locale: 'en-GB' });
  return `${fmt(period.start)} – ${fmt(period.end)} (${timing.timeZone})`;
}
