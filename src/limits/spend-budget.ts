// What a platform's reads may cost, and what they did cost. Before a request a tracker reserves the
// resources it may read from every budget meter of the platform (X: reads per UTC day, dollars per
// UTC day and month, posts per month), all in the store so that every process shares them; after
// it, it settles with what the platform really billed and adds that to the ledger.
//
// A reservation is one statement: it adds what it wants to every meter at once and reads back each
// meter's count. Where a count went over its limit, it keeps only what was left before it and gives
// the rest back (a second statement, only then). Each grant is computed from the count before it,
// which includes every earlier reservation in full, so processes reserving at once may refuse more
// than needed near a limit but never overspend. A reservation the store refuses is an error to the
// caller (it may not read without one): X reads are billed, so the budget fails closed.
//
// States of a meter for one period (a row per meter and UTC day or month):
//   OPEN    room left: a reservation gets what it asked for, or what is left (a partial grant).
//   SPENT   nothing left: a reservation gets 0 and the caller waits (a new period is a new row).
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Platform } from '../domain/platforms.ts';
import { utcDay, utcMonth, type RateCard, type ResourceKind } from '../domain/spend.ts';
import type { Database } from '../storage/schema.ts';
import { recordSpend } from '../storage/spend-repo.ts';
import { adjustMeters, type MeterDelta } from '../storage/usage-repo.ts';

export interface Meter {
  /** The meter's row name in the store (`x` for X's reads, `x:usd`, `x:posts`). */
  name: string;
  period: 'day' | 'month';
  /** Units allowed per period. */
  limit: number;
  /** Units one resource of each kind costs on this meter (reads: 1; dollars: the rate card; posts: 1 or 0). */
  units: Readonly<Record<ResourceKind, number>>;
  /** How a person calls it: "daily read budget", "monthly dollar budget"… */
  label: string;
}

export interface SpendReservation {
  kind: ResourceKind;
  day: string;
  /** Resources granted (0: a meter is spent). */
  granted: number;
  /** The meter that granted less than was asked, if any. */
  limitedBy: string | null;
  held: { meter: Meter; period: string; units: number }[];
}

export interface MeterSnapshot {
  label: string;
  period: string | null;
  used: number;
  limit: number;
}

export interface ReserveOptions {
  /** Keep room, on every meter, for this many user reads after the grant (profile checks come first). */
  keepUsers?: number;
  /** All or nothing: a partial grant becomes 0. */
  whole?: boolean;
}

export class SpendBudget {
  private readonly lastSeen = new Map<Meter, { period: string; used: number }>();

  constructor(
    private readonly db: Kysely<Database>,
    readonly platform: Platform,
    readonly meters: readonly Meter[],
    readonly card: RateCard,
    private readonly clock: Clock,
  ) {}

  /** Reserves up to `wanted` resources of `kind`; `granted` is 0 when a meter is spent. */
  async reserve(kind: ResourceKind, wanted: number, options: ReserveOptions = {}): Promise<SpendReservation> {
    const now = this.clock.now();
    const day = utcDay(now);
    const parts = this.meters
      .filter((m) => m.units[kind] > 0)
      .map((meter) => ({ meter, period: meter.period === 'day' ? day : utcMonth(now) }))
      .sort((a, b) => (a.meter.name + a.period < b.meter.name + b.period ? -1 : 1));
    const reservation: SpendReservation = { kind, day, granted: wanted, limitedBy: null, held: [] };
    if (parts.length === 0 || wanted <= 0) return reservation;
    const delta = (part: (typeof parts)[number], resources: number): MeterDelta => ({
      meter: part.meter.name,
      period: part.period,
      delta: resources * part.meter.units[kind],
    });
    const counts = await adjustMeters(
      this.db,
      parts.map((p) => delta(p, wanted)),
    );
    for (const part of parts) {
      const { meter, period } = part;
      const count = counts.get(`${meter.name}@${period}`) ?? 0;
      const before = count - wanted * meter.units[kind];
      const room = meter.limit - (options.keepUsers ?? 0) * meter.units.users - before;
      const fits = Math.max(0, Math.min(wanted, Math.floor(room / meter.units[kind])));
      if (fits < reservation.granted) {
        reservation.granted = fits;
        reservation.limitedBy = meter.label;
      }
      this.lastSeen.set(meter, { period, used: count });
    }
    if (options.whole && reservation.granted < wanted) reservation.granted = 0;
    const excess = wanted - reservation.granted;
    if (excess > 0) await this.apply(parts.map((p) => ({ ...delta(p, -excess), part: p })));
    reservation.held = parts.map((p) => ({ ...p, units: reservation.granted * p.meter.units[kind] }));
    return reservation;
  }

  /**
   * Settles a reservation with the resources the platform billed (0 when the request was not sent):
   * each meter is corrected, and the ledger records them at the rate card's price.
   */
  async settle(reservation: SpendReservation, billed: number): Promise<void> {
    const { kind } = reservation;
    await this.apply(
      reservation.held.map((h) => ({
        meter: h.meter.name,
        period: h.period,
        delta: billed * h.meter.units[kind] - h.units,
        part: h,
      })),
    );
    await recordSpend(this.db, {
      platform: this.platform,
      day: reservation.day,
      kind,
      resources: billed,
      micros: billed * this.card[kind],
    });
  }

  /**
   * Reserves, runs `work` with the grant (not called when nothing is granted: resolves to null),
   * and settles with what `work` reports billed, whatever happens (a throw settles 0 billed).
   */
  async spend<T>(
    kind: ResourceKind,
    wanted: number,
    options: ReserveOptions,
    work: (granted: number) => Promise<{ value: T; billed: number }>,
  ): Promise<T | null> {
    const reservation = await this.reserve(kind, wanted, options);
    if (reservation.granted === 0) return null;
    let billed = 0;
    try {
      const done = await work(reservation.granted);
      billed = done.billed;
      return done.value;
    } finally {
      await this.settle(reservation, billed);
    }
  }

  /** Each meter as the last reservation or settlement saw it; `period` is null before the first one. */
  snapshot(): MeterSnapshot[] {
    return this.meters.map((m) => {
      const seen = this.lastSeen.get(m);
      return { label: m.label, period: seen?.period ?? null, used: seen?.used ?? 0, limit: m.limit };
    });
  }

  private async apply(deltas: (MeterDelta & { part: { meter: Meter; period: string } })[]): Promise<void> {
    const counts = await adjustMeters(this.db, deltas);
    for (const { part } of deltas) {
      const used = counts.get(`${part.meter.name}@${part.period}`);
      if (used !== undefined) this.lastSeen.set(part.meter, { period: part.period, used });
    }
  }
}
