// The tracking loop: while running, claim due accounts platform by platform in batches, check
// them, and sleep until the next account is due or someone calls notify(). stop() stops claiming,
// lets running batches finish for a grace period, then aborts them (their leases are released).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Platform } from '../domain/platforms.ts';
import type { PlatformClient } from '../platforms/types.ts';
import type { Store } from '../storage/store.ts';
import { claimDueAccounts, nextDueAt, releaseLeases } from '../storage/tracking-repo.ts';
import { checkBatch } from './check-batch.ts';
import { NO_METRICS, type PlatformLane, type TrackerContext, type TrackerMetrics, type TrackerSettings } from './context.ts';
import { RateGate, type GateSnapshot } from './rate-gate.ts';
import { ReadBudget } from './read-budget.ts';
import type { TrackerClock } from './tracker-clock.ts';

/** An idle tracker looks for due work at least this often (another process may have imported). */
const IDLE_POLL_MS = 5_000;
/** Shortest idle sleep between ticks: a floor against spinning when due work cannot be claimed. */
const MIN_IDLE_MS = 50;
/** After the platform refuses our credentials, try again this much later. */
const UNAUTHORIZED_PAUSE_MS = 60_000;

export interface TrackerOptions {
  store: Store;
  clients: readonly PlatformClient[];
  clock: TrackerClock;
  settings: TrackerSettings;
  logger: Logger;
  /** Reads per UTC day per platform that bills them (X); absent = unlimited. */
  dailyReadBudgets?: Partial<Record<Platform, number>>;
  metrics?: TrackerMetrics;
  random?: () => number;
  owner?: string;
}

interface Lane extends PlatformLane {
  pausedUntil: number;
  pauseReason: string | null;
}

export interface TickReport {
  checked: number;
  released: number;
  leaseLost: number;
}

export interface TrackerStatus {
  running: boolean;
  owner: string;
  lastTickAt: string | null;
  lastTickMs: number | null;
  /** Ticks since start. */
  ticks: number;
  platforms: Record<string, { configured: boolean; pausedUntil: string | null; pauseReason: string | null; lookup: GateSnapshot; posts: GateSnapshot; budget: { day: string; used: number; limit: number } | null }>;
}

export class Tracker {
  readonly owner: string;
  private readonly options: TrackerOptions;
  private readonly lanes: Lane[];
  private readonly abort = new AbortController();
  private stopping = false;
  private wake: AbortController | null = null;
  private running: Promise<void> | null = null;
  private lastTickAt: number | null = null;
  private lastTickMs: number | null = null;
  private ticks = 0;
  private stopped: Promise<void> | null = null;

  constructor(options: TrackerOptions) {
    this.options = options;
    this.owner = options.owner ?? `tracker-${randomUUID()}`;
    // Every request in flight and every waiter listens to the one stop signal.
    setMaxListeners(1_000, this.abort.signal);
    this.lanes = options.clients.map((client) => {
      const limit = options.dailyReadBudgets?.[client.platform];
      return {
        client,
        gates: { lookup: new RateGate(options.clock), posts: new RateGate(options.clock) },
        budget: limit === undefined ? null : new ReadBudget(options.store.db, client.platform, limit, options.clock),
        pausedUntil: 0,
        pauseReason: null,
      };
    });
  }

  /** Runs the loop in the background until stop(). */
  start(): void {
    this.running ??= this.loop().catch((error: unknown) => this.options.logger.error({ err: error }, 'tracker loop ended'));
  }

  /** Wakes an idle loop at once (an import or a refresh made accounts due). */
  notify(): void {
    this.wake?.abort();
  }

  private async loop(): Promise<void> {
    const { clock, store, logger } = this.options;
    while (!this.stopping) {
      try {
        await this.tick();
      } catch (error) {
        logger.error({ err: error }, 'tracker tick failed');
      }
      if (this.stopping) break;
      this.wake = new AbortController();
      const signal = AbortSignal.any([this.wake.signal, this.abort.signal]);
      // Only platforms that can work now count: X without a token, or a paused platform, must
      // not keep an idle tracker spinning on accounts it cannot check.
      const now = clock.now();
      const working = this.lanes.filter((lane) => lane.client.configured && lane.pausedUntil <= now);
      let wait = IDLE_POLL_MS;
      try {
        const due = await nextDueAt(store.reader, working.map((lane) => lane.client.platform), now);
        if (due !== null) wait = Math.min(wait, due - now);
      } catch (error) {
        logger.warn({ err: error }, 'could not read the next due time');
      }
      for (const lane of this.lanes) if (lane.pausedUntil > now) wait = Math.min(wait, lane.pausedUntil - now);
      // A tick just found nothing it could claim; never loop faster than this even if work looks due.
      await clock.sleep(Math.max(MIN_IDLE_MS, wait), signal);
    }
  }

  /** Checks every account due now, on every platform; resolves when none is left (or on stop). */
  async tick(): Promise<TickReport> {
    const started = performance.now();
    const report: TickReport = { checked: 0, released: 0, leaseLost: 0 };
    await Promise.all(this.lanes.filter((lane) => lane.client.configured).map((lane) => this.runLane(lane, report)));
    this.lastTickAt = this.options.clock.now();
    this.lastTickMs = Math.round(performance.now() - started);
    this.ticks += 1;
    return report;
  }

  private async runLane(lane: Lane, report: TickReport): Promise<void> {
    const { clock, store, settings, logger } = this.options;
    const context: TrackerContext = {
      store,
      lane,
      clock,
      settings,
      metrics: this.options.metrics ?? NO_METRICS,
      logger,
      random: this.options.random ?? Math.random,
      owner: this.owner,
      signal: this.abort.signal,
    };
    const worker = async () => {
      let more = true;
      while (more && !this.stopping && lane.pausedUntil <= clock.now()) {
        // The reads a batch may cost are held before claiming, so workers in parallel cannot
        // together overspend the day's budget.
        const reads = lane.client.batchSize;
        if (lane.budget && !(await lane.budget.tryReserve(reads))) {
          this.pause(lane, lane.budget.nextDayAt(), 'daily read budget spent');
          return;
        }
        try {
          more = await this.claimAndCheck(lane, context, report);
        } finally {
          lane.budget?.release(reads);
        }
      }
    };
    await Promise.all(Array.from({ length: settings.batchesInFlight }, worker));
  }

  /** One batch: wait for the rate gate, claim, check. Returns false when nothing was due. */
  private async claimAndCheck(lane: Lane, context: TrackerContext, report: TickReport): Promise<boolean> {
    const { clock, store, settings, logger } = this.options;
    // The gate is passed before claiming, so a lease is never held while waiting for a window.
    const waitedBefore = lane.gates.lookup.waitedMs;
    if (!(await lane.gates.lookup.acquire(this.abort.signal))) return false;
    context.metrics.rateLimitWait(lane.client.platform, lane.gates.lookup.waitedMs - waitedBefore);
    if (this.stopping) {
      lane.gates.lookup.cancel();
      return false;
    }
    const claim = { platform: lane.client.platform, owner: this.owner, now: clock.now(), leaseMs: settings.leaseMs, limit: lane.client.batchSize };
    // Names never resolved go first: they are new, and a user is waiting to see them.
    let resolved = false;
    let accounts = await claimDueAccounts(store.db, store.caps, { ...claim, resolved });
    if (accounts.length === 0) {
      resolved = true;
      accounts = await claimDueAccounts(store.db, store.caps, { ...claim, resolved });
    }
    if (accounts.length === 0) {
      lane.gates.lookup.cancel();
      return false;
    }
    try {
      const result = await checkBatch(context, accounts, resolved, true);
      report.checked += result.checked;
      report.released += result.released;
      report.leaseLost += result.leaseLost;
      if (result.unauthorized) this.pause(lane, clock.now() + UNAUTHORIZED_PAUSE_MS, 'the platform refused our credentials');
    } catch (error) {
      // Whatever broke (the store, a shutdown abort), the accounts go back to the pool.
      report.released += await releaseLeases(store.db, this.owner, accounts.map((a) => a.id)).catch(() => 0);
      if (!this.abort.signal.aborted) {
        logger.error({ err: error, platform: lane.client.platform }, 'batch failed; its accounts were released');
        await clock.sleep(1_000, this.abort.signal);
      }
    }
    return true;
  }

  private pause(lane: Lane, until: number, reason: string): void {
    lane.pausedUntil = until;
    lane.pauseReason = reason;
    this.options.logger.warn({ platform: lane.client.platform, until: new Date(until).toISOString(), reason }, 'platform paused');
  }

  /** Stops claiming; running batches get `graceMs` to finish, then are aborted and their leases released. */
  stop(graceMs = 5_000): Promise<void> {
    this.stopped ??= this.shutdown(graceMs);
    return this.stopped;
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    this.notify();
    const running = this.running ?? Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.abort.abort();
    await running;
    await releaseLeases(this.options.store.db, this.owner).catch(() => 0);
  }

  status(): TrackerStatus {
    const iso = (ms: number | null) => (ms === null || ms <= this.options.clock.now() ? null : new Date(ms).toISOString());
    const platforms: TrackerStatus['platforms'] = {};
    for (const lane of this.lanes) {
      platforms[lane.client.platform] = {
        configured: lane.client.configured,
        pausedUntil: iso(lane.pausedUntil),
        pauseReason: lane.pausedUntil > this.options.clock.now() ? lane.pauseReason : null,
        lookup: lane.gates.lookup.snapshot(),
        posts: lane.gates.posts.snapshot(),
        budget: lane.budget?.snapshot() ?? null,
      };
    }
    return { running: this.running !== null && !this.stopping, owner: this.owner, lastTickAt: this.lastTickAt === null ? null : new Date(this.lastTickAt).toISOString(), lastTickMs: this.lastTickMs, ticks: this.ticks, platforms };
  }
}
