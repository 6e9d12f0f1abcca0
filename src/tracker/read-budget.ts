// X bills every resource read: X_DAILY_READ_BUDGET caps the reads per UTC day. The count lives in
// the store (so a restart does not reset it); this object caches today's figure between requests.
import type { Kysely } from 'kysely';
import type { Platform } from '../domain/platforms.ts';
import type { Database } from '../storage/schema.ts';
import { addReads, readsOn, utcDay } from '../storage/usage-repo.ts';
import type { TrackerClock } from './tracker-clock.ts';

export class ReadBudget {
  private day = '';
  private used = 0;
  private reserved = 0;
  private readonly db: Kysely<Database>;
  private readonly platform: Platform;
  readonly limit: number;
  private readonly clock: TrackerClock;

  constructor(db: Kysely<Database>, platform: Platform, limit: number, clock: TrackerClock) {
    this.db = db;
    this.platform = platform;
    this.limit = limit;
    this.clock = clock;
  }

  private async refresh(): Promise<void> {
    const today = utcDay(this.clock.now());
    if (today !== this.day) {
      this.used = await readsOn(this.db, this.platform, today);
      this.day = today;
    }
  }

  /**
   * Holds `reads` of today's budget for a request about to go, if they fit beside what is spent
   * and what requests in flight hold. Give them back with release() once the request has spent.
   */
  async tryReserve(reads: number): Promise<boolean> {
    await this.refresh();
    if (this.used + this.reserved + reads > this.limit) return false;
    this.reserved += reads;
    return true;
  }

  release(reads: number): void {
    this.reserved = Math.max(0, this.reserved - reads);
  }

  async spend(reads: number): Promise<void> {
    if (reads <= 0) return;
    await this.refresh();
    this.used += reads;
    await addReads(this.db, this.platform, this.day, reads);
  }

  /** Epoch ms of the next UTC midnight, when the budget starts again. */
  nextDayAt(): number {
    const now = new Date(this.clock.now());
    return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  }

  snapshot(): { day: string; used: number; limit: number } {
    return { day: this.day, used: this.used, limit: this.limit };
  }
}
