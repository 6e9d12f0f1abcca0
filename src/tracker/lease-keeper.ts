// Keeps a batch's leases while it is still working: a batch slowed by retries, a rate-limited
// timeline read or a slow store must not lose its accounts to another tracker halfway. The leases
// are renewed once a third of the lease has passed since the last renewal: at each step of the
// batch (on the tracker's clock, so virtual time in tests renews too) and by every() between steps
// (real timers: a single request can take longer than a step).
import type { SleepingClock } from '../clock.ts';
import { every, type Every } from '../every.ts';
import { renewLeases } from '../storage/leases-repo.ts';
import type { Store } from '../storage/store.ts';

/** The real timer looks at least this often (it writes only when a renewal is due). */
const TIMER_MS = 10_000;

export class LeaseKeeper {
  private renewedAt: number;
  private timer: Every | null = null;
  private renewing: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<Store, 'db'>,
    private readonly clock: SleepingClock,
    private readonly owner: string,
    private readonly ids: readonly number[],
    private readonly leaseMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.renewedAt = clock.now();
  }

  start(): this {
    this.timer ??= every(Math.min(TIMER_MS, Math.max(1_000, this.leaseMs / 3)), () => this.renewIfDue());
    return this;
  }

  /** Renews the leases when a third of the lease has passed since the last renewal; never throws. */
  renewIfDue(): Promise<void> {
    const now = this.clock.now();
    if (this.renewing || now - this.renewedAt < this.leaseMs / 3) return this.renewing ?? Promise.resolve();
    this.renewing = renewLeases(this.store.db, this.owner, this.ids, now + this.leaseMs)
      .then(() => void (this.renewedAt = now), this.onError)
      .finally(() => (this.renewing = null));
    return this.renewing;
  }

  async stop(): Promise<void> {
    await this.timer?.stop();
    this.timer = null;
    await this.renewing;
  }
}
