// X bills every resource read: X_DAILY_READ_BUDGET caps the reads per UTC day. Before a request,
// a tracker reserves what it may read from the count in the store (shared by every process);
// afterwards it settles the reservation with what was really read.
import type { Kysely } from 'kysely';
import type { Platform } from '../domain/platforms.ts';
import type { Database } from '../storage/schema.ts';
import { adjustReads, readsOn, reserveReads, utcDay } from '../storage/usage-repo.ts';
import type { SleepingClock } from '../clock.ts';

export interface Reservation {
  day: string;
  granted: number;
}

export class ReadBudget {
  private lastSeen = { day: '', used: 0 };
  private readonly db: Kysely<Database>;
  private readonly platform: Platform;
  readonly limit: number;
  private readonly clock: SleepingClock;

  constructor(db: Kysely<Database>, platform: Platform, limit: number, clock: SleepingClock) {
    this.db = db;
    this.platform = platform;
    this.limit = limit;
    this.clock = clock;
  }

  /** Reserves up to `wanted` reads of today's budget; `granted` is 0 when the day is spent. */
  async reserve(wanted: number): Promise<Reservation> {
    const day = utcDay(this.clock.now());
    const granted = await reserveReads(this.db, this.platform, day, wanted, this.limit);
    this.lastSeen = { day, used: await readsOn(this.db, this.platform, day) };
    return { day, granted };
  }

  /** Settles a reservation with the reads the request really made (0 when it was not sent). */
  async settle(reservation: Reservation, read: number): Promise<void> {
    await adjustReads(this.db, this.platform, reservation.day, read - reservation.granted);
    if (reservation.day === this.lastSeen.day) this.lastSeen.used += read - reservation.granted;
  }

  /** What the last reservation saw; `day` is null before the first one. */
  snapshot(): { day: string | null; used: number; limit: number } {
    return { day: this.lastSeen.day === '' ? null : this.lastSeen.day, used: this.lastSeen.used, limit: this.limit };
  }
}
