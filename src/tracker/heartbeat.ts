// A running tracker's heartbeat: every HEARTBEAT_MS it writes who it is and its running totals to
// the store, and marks itself stopped on the way out. Health and metrics of every process read
// these rows, so an operator sees from any API process which trackers are alive and how the work
// is shared. Timed with real timers, not the tracker's clock: a test's virtual time must not run
// on because a heartbeat is waiting.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { HEARTBEAT_MS } from '../domain/tracker-status.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../storage/store.ts';
import { markStopped, pruneTrackers, writeBeat } from '../storage/tracker-processes-repo.ts';

/** Rows of trackers gone for this long are deleted. */
const FORGET_AFTER_MS = 7 * 86_400_000;

export interface Totals {
  checks: number;
  batches: number;
}

export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAt: number;
  private beating: Promise<void> | null = null;

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
    if (this.timer) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Writes one beat, unless the last one is still on its way (a slow store): beats never overlap. */
  private beat(): Promise<void> {
    if (this.beating) return this.beating;
    const now = this.clock.now();
    this.beating = (async () => {
      await writeBeat(
        this.store.db,
        { ...this.who, host: hostname(), pid: process.pid, startedAt: this.startedAt, ...this.totals() },
        now,
      );
      if (Math.floor(now / HEARTBEAT_MS) % 720 === 0) await pruneTrackers(this.store.db, now - FORGET_AFTER_MS);
    })()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not write the tracker heartbeat'))
      .finally(() => (this.beating = null));
    return this.beating;
  }

  /** Writes the final totals and marks the tracker stopped. */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    await this.beat();
    await markStopped(this.store.db, this.who.owner, this.clock.now()).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'could not mark the tracker stopped'),
    );
  }
}
