// A running tracker's heartbeat: every HEARTBEAT_MS it writes who it is and its running totals to
// the store, and marks itself stopped on the way out. Health and metrics of every process read
// these rows, so an operator sees from any API process which trackers are alive and how the work
// is shared. Timed by every() (src/every.ts) on real timers, not the tracker's clock: a test's
// virtual time must not run on because a heartbeat is waiting.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { HEARTBEAT_MS } from '../domain/tracker-status.ts';
import type { Clock } from '../clock.ts';
import { every, type Every } from '../every.ts';
import type { Store } from '../storage/store.ts';
import { markStopped, pruneTrackers, writeBeat } from '../storage/tracker-processes-repo.ts';

/** Rows of trackers gone for this long are deleted. */
const FORGET_AFTER_MS = 7 * 86_400_000;

export interface Totals {
  checks: number;
  batches: number;
}

export class Heartbeat {
  private chore: Every | null = null;
  private readonly startedAt: number;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly who: { owner: string; role: string },
    private readonly totals: () => Totals,
  ) {
    this.startedAt = clock.now();
  }

  start(): void {
    // Beats never overlap: one still on its way (a slow store) skips the next turn.
    this.chore ??= every(HEARTBEAT_MS, () => this.beat(), {
      firstAfterMs: 0,
      onError: (error) => this.logger.warn({ err: error }, 'could not write the tracker heartbeat'),
    });
  }

  private async beat(): Promise<void> {
    const now = this.clock.now();
    await writeBeat(
      this.store.db,
      { ...this.who, host: hostname(), pid: process.pid, startedAt: this.startedAt, ...this.totals() },
      now,
    );
    if (Math.floor(now / HEARTBEAT_MS) % 720 === 0) await pruneTrackers(this.store.db, now - FORGET_AFTER_MS);
  }

  /** Writes the final totals and marks the tracker stopped. */
  async stop(): Promise<void> {
    if (!this.chore) return;
    await this.chore.stop();
    this.chore = null;
    await this.beat().catch((error: unknown) =>
      this.logger.warn({ err: error }, 'could not write the tracker heartbeat'),
    );
    await markStopped(this.store.db, this.who.owner, this.clock.now()).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'could not mark the tracker stopped'),
    );
  }
}
