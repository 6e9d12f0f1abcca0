// The platforms' rate-limit windows, shared by every tracker process through one row per window.
// A request is taken from the row by a conditional update, so trackers in parallel (in this
// process or any other) can never together take more than the platform's headers left.
import { sql, type Kysely } from 'kysely';
import { runByShape } from './prepared.ts';
import type { Database, RateWindowsTable } from './schema.ts';

type Db = Kysely<Database>;

export interface WindowRow {
  limit: number | null;
  remaining: number | null;
  resetAt: number;
  blockedUntil: number;
  probeUntil: number;
}

export interface WindowReport {
  limit: number;
  remaining: number;
  resetAt: number;
}

/**
 * What taking a request from a window gave: a token of the known window (with what the window has
 * left after it), the one probe of an unknown one, or nothing.
 */
export type Take =
  { kind: 'token'; resetAt: number; remaining: number } | { kind: 'probe' } | { kind: 'none'; row: WindowRow };

/** Resets this close together are one window (a platform may round its reset differently per response). */
const SAME_WINDOW_MS = 2_000;
const COLUMNS = ['limit_count', 'remaining', 'reset_at', 'blocked_until', 'probe_until'] as const;

type WindowColumns = Pick<RateWindowsTable, 'limit_count' | 'remaining'> & {
  reset_at: number;
  blocked_until: number;
  probe_until: number;
};

function toRow(row: WindowColumns): WindowRow {
  return {
    limit: row.limit_count,
    remaining: row.remaining,
    resetAt: Number(row.reset_at),
    blockedUntil: Number(row.blocked_until),
    probeUntil: Number(row.probe_until),
  };
}

async function readWindow(db: Db, key: string): Promise<WindowRow | null> {
  const row = await db.selectFrom('rate_windows').select(COLUMNS).where('window_key', '=', key).executeTakeFirst();
  return row ? toRow(row) : null;
}

/**
 * Takes one request from the window at `now`, in one statement while the window has room. While
 * the window is known (headers seen, reset not yet passed plus `margin`) a token is taken from
 * `remaining`; when it is unknown, one request may go as a probe, alone until it settles or
 * `probeMs` passes (a tracker that died mid-probe). The two cases exclude each other, so the row
 * the update returns says which was taken. Nothing taken costs one more read, to say why.
 */
export async function takeRequest(db: Db, key: string, now: number, margin: number, probeMs: number): Promise<Take> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const args = [key, now, margin, now + probeMs];
    const result = await runByShape<{ remaining: number | null; reset_at: number }>(db, 'take-request', args, (a) => {
      const [windowKey, at, slack, probeUntil] = a;
      const token = sql<boolean>`(remaining > 0 and reset_at + ${slack} > ${at})`;
      const probe = sql<boolean>`(probe_until <= ${at} and (remaining is null or reset_at + ${slack} <= ${at}))`;
      return db
        .updateTable('rate_windows')
        .set({
          remaining: sql`case when ${token} then remaining - 1 else remaining end`,
          probe_until: sql`case when ${token} then probe_until else ${probeUntil} end`,
          updated_at: at as number,
        })
        .where('window_key', '=', windowKey as string)
        .where('blocked_until', '<=', at as number)
        .where(sql<boolean>`(${token} or ${probe})`)
        .returning(['remaining', 'reset_at']);
    });
    const taken = result.rows[0];
    if (taken) {
      const resetAt = Number(taken.reset_at);
      // A token leaves the window known (remaining counted, reset ahead); a probe leaves it unknown.
      return taken.remaining !== null && resetAt + margin > now
        ? { kind: 'token', resetAt, remaining: Number(taken.remaining) }
        : { kind: 'probe' };
    }
    const row = await readWindow(db, key);
    if (row) return { kind: 'none', row };
    // First use of this window (or the table was emptied): create it unknown, then try again.
    await db
      .insertInto('rate_windows')
      .values({ window_key: key, updated_at: now })
      .onConflict((oc) => oc.column('window_key').doNothing())
      .execute();
  }
  throw new Error(`rate window ${key} could not be created`);
}

/**
 * Records what a response said. Within one window `remaining` only goes down (responses arrive out
 * of order, and tokens taken for requests still in flight are already subtracted); a later window
 * replaces it. A 429's retry time blocks the window until then. `probe` ends the caller's probe.
 */
export async function recordWindow(
  db: Db,
  key: string,
  now: number,
  report: WindowReport | null,
  blockedUntil: number | null,
  probe: boolean,
): Promise<WindowRow | null> {
  // Which parts the statement has is its shape; the values are its arguments.
  const shape = `record-window:${probe ? 'probe,' : ''}${report ? 'report,' : ''}${blockedUntil !== null ? 'blocked' : ''}`;
  const args: unknown[] = [key, now];
  if (report) {
    const { limit, remaining, resetAt } = report;
    args.push(limit, remaining, resetAt, resetAt - SAME_WINDOW_MS, resetAt + SAME_WINDOW_MS);
  }
  if (blockedUntil !== null) args.push(blockedUntil);
  const result = await runByShape<WindowColumns>(db, shape, args, (a) => {
    const [windowKey, at, ...rest] = a;
    const set: Record<string, unknown> = { updated_at: at };
    if (probe) set.probe_until = 0;
    if (report) {
      const [limit, remaining, resetAt, sameFrom, sameTo] = rest.splice(0, 5);
      const same = sql<boolean>`remaining is not null and reset_at > ${sameFrom} and reset_at < ${sameTo}`;
      set.limit_count = limit;
      set.remaining = sql`case when ${same} then (case when remaining < ${remaining} then remaining else ${remaining} end) when reset_at < ${resetAt} or remaining is null then ${remaining} else remaining end`;
      set.reset_at = sql`case when reset_at < ${resetAt} then ${resetAt} else reset_at end`;
    }
    if (blockedUntil !== null) {
      const [blocked] = rest;
      set.blocked_until = sql`case when blocked_until < ${blocked} then ${blocked} else blocked_until end`;
    }
    return db
      .updateTable('rate_windows')
      .set(set)
      .where('window_key', '=', windowKey as string)
      .returning(COLUMNS);
  });
  const row = result.rows[0];
  return row ? toRow(row) : null;
}

/**
 * Takes `count` requests at once from a known window that has at least that many left before its
 * reset (not blocked), in one conditional update; null when it has not (the caller then takes one).
 */
export async function takeBlock(
  db: Db,
  key: string,
  now: number,
  count: number,
): Promise<{ resetAt: number; remaining: number } | null> {
  const result = await runByShape<{ remaining: number; reset_at: number }>(
    db,
    'take-block',
    [count, now, key, now, count, now],
    (a) => {
      const [taken, at, windowKey, blockedAt, least, resetAfter] = a;
      return db
        .updateTable('rate_windows')
        .set({ remaining: sql`remaining - ${taken}`, updated_at: at as number })
        .where('window_key', '=', windowKey as string)
        .where('blocked_until', '<=', blockedAt as number)
        .where('remaining', '>=', least as number)
        .where('reset_at', '>', resetAfter as number)
        .returning(['remaining', 'reset_at']);
    },
  );
  const row = result.rows[0];
  return row ? { resetAt: Number(row.reset_at), remaining: Number(row.remaining) } : null;
}

/** Gives back `count` tokens that were never used, if their window is still the current one. */
export async function returnToken(db: Db, key: string, resetAt: number, count = 1): Promise<void> {
  await db
    .updateTable('rate_windows')
    .set({ remaining: sql`remaining + ${count}` })
    .where('window_key', '=', key)
    .where('reset_at', '=', resetAt)
    .where('remaining', 'is not', null)
    .execute();
}
