// X bills every resource read: X_DAILY_READ_BUDGET caps the reads per UTC day. Before a request a
// tracker reserves what it may read from the day's count in the store (shared by every process,
// so a restart does not reset it); afterwards it settles the reservation with what was really read.
// A reservation is one statement and a settlement one more: two round trips per request.
//
// States of a platform's budget for one UTC day (one row in `platform_usage`):
//   OPEN    reads left: a reservation gets what it asked for, or what is left (a partial grant).
//   SPENT   nothing left: a reservation gets 0 and the caller waits for the next UTC day.
// A settlement that reads less than it reserved gives the rest back (SPENT may become OPEN again);
// a new UTC day is a new row, OPEN. Unlike the other limits, a reservation the store refuses is an
// error to the caller (it may not read without one): X reads are billed, so the budget fails closed.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../storage/schema.ts';
import { adjustReads, reserveReads, utcDay } from '../storage/usage-repo.ts';

export interface Reservation {
  day: string;
  granted: number;
}

export interface BudgetSnapshot {
  day: string | null;
  used: number;
  limit: number;
}

export class ReadBudget {
  private lastSeen = { day: '', used: 0 };

  constructor(
    private readonly db: Kysely<Database>,
    /** Names the budget's row: a platform (`x`), or any other budget of reads (`x:post-refresh`). */
    private readonly name: string,
    readonly limit: number,
    private readonly clock: Clock,
  ) {}

  /** Reserves up to `wanted` reads of today's budget; `granted` is 0 when the day is SPENT. */
  async reserve(wanted: number): Promise<Reservation> {
    const day = utcDay(this.clock.now());
    const { granted, used } = await reserveReads(this.db, this.name, day, wanted, this.limit);
    this.lastSeen = { day, used };
    return { day, granted };
  }

  /** Settles a reservation with the reads the request really made (0 when it was not sent). */
  async settle(reservation: Reservation, read: number): Promise<void> {
    const used = await adjustReads(this.db, this.name, reservation.day, read - reservation.granted);
    if (used !== null && reservation.day === this.lastSeen.day) this.lastSeen.used = used;
  }

  /**
   * Reserves `wanted` reads, runs `work` with the grant (not called when the day is SPENT: resolves
   * to null), and settles with the reads `work` reports, whatever happens (a throw settles 0 read).
   */
  async spend<T>(wanted: number, work: (granted: number) => Promise<{ value: T; reads: number }>): Promise<T | null> {
    const reservation = await this.reserve(wanted);
    if (reservation.granted === 0) return null;
    let reads = 0;
    try {
      const done = await work(reservation.granted);
      reads = done.reads;
      return done.value;
    } finally {
      await this.settle(reservation, reads);
    }
  }

  /** What the last reservation or settlement saw; `day` is null before the first one. */
  snapshot(): BudgetSnapshot {
    return { day: this.lastSeen.day === '' ? null : this.lastSeen.day, used: this.lastSeen.used, limit: this.limit };
  }
}
