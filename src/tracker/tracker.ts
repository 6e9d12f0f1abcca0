// The tracking loop: each platform runs on its own (one platform waiting for its rate limit never
// holds up another): workers claim due accounts in batches, check them, and the lane sleeps until
// its next account is due or someone calls notify(). stop() stops claiming, lets running batches
// finish for a grace period, then aborts them (their leases are released).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Platform } from '../domain/platforms.ts';
import type { Endpoint, PlatformClient } from '../platforms/types.ts';
import type { Store } from '../storage/store.ts';
import { claimDueAccounts, deferAccounts, hasDueUnresolved, nextDueAt, releaseLeases, releaseTrackerLeases } from '../storage/tracking-repo.ts';
import { checkBatch } from './check-batch.ts';
import { Heartbeat } from './heartbeat.ts';
import { NO_METRICS, type PlatformLane, type TrackerContext, type TrackerMetrics, type TrackerSettings } from './context.ts';
import { RateGate, type GateSnapshot } from '../limits/rate-gate.ts';
import { ReadBudget } from '../limits/read-budget.ts';
import type { SleepingClock } from '../clock.ts';

/** An idle lane looks for due work at least this often (another process may have imported). */
const IDLE_POLL_MS = 5_000;
/** Shortest idle sleep: a floor against spinning when due work cannot be claimed. */
const MIN_IDLE_MS = 50;
/** After the platform refuses our credentials, or the day's read budget is spent, look again this much later. */
const PAUSE_MS = 60_000;
/** A batch that failed for a reason of ours (the store refused it) is retried this much later, not at once. */
const BATCH_FAILURE_DELAY_MS = 60_000;

export interface TrackerOptions {
  store: Store;
  clients: readonly PlatformClient[];
  clock: SleepingClock;
  settings: TrackerSettings;
  logger: Logger;
  /** Reads per UTC day per platform that bills them (X); absent = unlimited. */
  dailyReadBudgets?: Partial<Record<Platform, number>>;
  metrics?: TrackerMetrics;
  random?: () => number;
  owner?: string;
  /** What the process runs, for the heartbeat: `serve` (API and tracker) or `worker`. */
  role?: string;
}

interface Lane extends PlatformLane {
  pausedUntil: number;
  pauseReason: string | null;
  wake: AbortController;
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
  /** Lane rounds (claim until nothing is due) since start. */
  ticks: number;
  platforms: Record<string, { configured: boolean; pausedUntil: string | null; pauseReason: string | null; lookup: GateSnapshot; posts: GateSnapshot; budget: { day: string | null; used: number; limit: number } | null }>;
}

/** One gate per rate-limit group of the platform's credential; endpoints of a group share it. */
function gatesFor(client: PlatformClient, store: Store, clock: SleepingClock, logger: Logger): Record<Endpoint, RateGate> {
  const byGroup = new Map<string, RateGate>();
  const gate = (endpoint: Endpoint) => {
    const group = client.rateLimitGroups[endpoint];
    const key = `${client.platform}:${group}:${client.rateLimitScope}`;
    if (!byGroup.has(group)) byGroup.set(group, new RateGate(store.db, key, clock, (error) => logger.warn({ err: error, window: key }, 'could not record a rate-limit window')));
    return byGroup.get(group) as RateGate;
  };
  return { lookup_by_name: gate('lookup_by_name'), lookup_by_id: gate('lookup_by_id'), posts: gate('posts') };
}

export class Tracker {
  readonly owner: string;
  private readonly options: TrackerOptions;
  private readonly lanes: Lane[];
  /** What every batch's context shares; each batch adds its lane and its claim's owner. */
  private readonly shared: Omit<TrackerContext, 'lane' | 'owner'>;
  private readonly abort = new AbortController();
  private stopping = false;
  private running: Promise<void> | null = null;
  private stopped: Promise<void> | null = null;
  private lastTickAt: number | null = null;
  private lastTickMs: number | null = null;
  private ticks = 0;
  private claims = 0;
  /** Accounts checked and batches done since start, reported by the heartbeat. */
  private checked = 0;
  private batches = 0;
  private readonly heartbeat: Heartbeat;

  constructor(options: TrackerOptions) {
    this.options = options;
    this.owner = options.owner ?? `tracker-${randomUUID()}`;
    // Every request in flight and every waiter listens to the one stop signal.
    setMaxListeners(1_000, this.abort.signal);
    this.lanes = options.clients.map((client) => {
      const limit = options.dailyReadBudgets?.[client.platform];
      return {
        client,
        gates: gatesFor(client, options.store, options.clock, options.logger),
        budget: limit === undefined ? null : new ReadBudget(options.store.db, client.platform, limit, options.clock),
        pausedUntil: 0,
        pauseReason: null,
        wake: new AbortController(),
      };
    });
    this.heartbeat = new Heartbeat(options.store, options.clock, options.logger, { owner: this.owner, role: options.role ?? 'serve' }, () => ({ checks: this.checked, batches: this.batches }));
    this.shared = {
      store: options.store,
      clock: options.clock,
      settings: options.settings,
      metrics: options.metrics ?? NO_METRICS,
      logger: options.logger,
      random: options.random ?? Math.random,
      signal: this.abort.signal,
    };
  }

  /** Runs every configured platform's loop in the background until stop(). */
  start(): void {
    this.heartbeat.start();
    this.running ??= Promise.all(this.lanes.filter((lane) => lane.client.configured).map((lane) => this.laneLoop(lane))).then(() => {});
  }

  /** Wakes idle lanes at once (an import or a refresh made accounts due). */
  notify(): void {
    for (const lane of this.lanes) lane.wake.abort();
  }

  private async laneLoop(lane: Lane): Promise<void> {
    const { clock, store, logger } = this.options;
    while (!this.stopping) {
      lane.wake = new AbortController();
      const report: TickReport = { checked: 0, released: 0, leaseLost: 0 };
      if (lane.pausedUntil <= clock.now()) await this.runLane(lane, report);
      if (this.stopping) break;
      const now = clock.now();
      let wait = IDLE_POLL_MS;
      if (lane.pausedUntil > now) {
        wait = Math.min(wait, lane.pausedUntil - now);
      } else {
        try {
          const due = await nextDueAt(store.reader, [lane.client.platform], now);
          if (due !== null) wait = Math.min(wait, due - now);
        } catch (error) {
          logger.warn({ err: error }, 'could not read the next due time');
        }
      }
      await clock.sleep(Math.max(MIN_IDLE_MS, wait), lane.wake.signal);
    }
  }

  /** Checks every account due now on every configured platform; resolves when none is left (or on stop). */
  async tick(): Promise<TickReport> {
    const report: TickReport = { checked: 0, released: 0, leaseLost: 0 };
    await Promise.all(this.lanes.filter((lane) => lane.client.configured && lane.pausedUntil <= this.options.clock.now()).map((lane) => this.runLane(lane, report)));
    return report;
  }

  /** One round of a lane: its workers claim and check until nothing is due. Never rejects. */
  private async runLane(lane: Lane, report: TickReport): Promise<void> {
    const { clock, settings, logger } = this.options;
    const started = performance.now();
    const worker = async () => {
      try {
        while (!this.stopping && lane.pausedUntil <= clock.now() && (await this.claimAndCheck(lane, report)));
      } catch (error) {
        if (!this.abort.signal.aborted) logger.error({ err: error, platform: lane.client.platform }, 'tracker worker failed');
      }
    };
    await Promise.all(Array.from({ length: settings.batchesInFlight }, worker));
    this.lastTickAt = clock.now();
    this.lastTickMs = Math.round(performance.now() - started);
    this.ticks += 1;
  }

  /** One batch: reserve reads, pass the rate gate, claim, check. Returns false when nothing more is due. */
  private async claimAndCheck(lane: Lane, report: TickReport): Promise<boolean> {
    const { clock, store, settings, logger } = this.options;
    const platform = lane.client.platform;
    const now = clock.now();
    // Names never resolved go first: they are new, and a user is waiting to see them.
    const resolved = !(await hasDueUnresolved(store.reader, platform, now));
    // The reads a batch may cost are reserved before claiming, in the store, so trackers in
    // parallel (here or in other processes) cannot together overspend the day's budget.
    const reservation = lane.budget ? await lane.budget.reserve(lane.client.batchSize) : null;
    if (reservation?.granted === 0) {
      this.pause(lane, clock.now() + PAUSE_MS, 'daily read budget spent');
      return false;
    }
    let reads = 0;
    try {
      // The gate is passed before claiming, so a lease is never held while waiting for a window.
      const gate = lane.gates[resolved ? 'lookup_by_id' : 'lookup_by_name'];
      const waitedBefore = gate.waitedMs;
      const ticket = await gate.acquire(this.abort.signal);
      if (ticket === null) return false;
      this.shared.metrics.rateLimitWait(platform, gate.waitedMs - waitedBefore);
      if (this.stopping) {
        await gate.cancel(ticket);
        return false;
      }
      const limit = Math.min(lane.client.batchSize, reservation?.granted ?? lane.client.batchSize);
      this.claims += 1;
      const owner = `${this.owner}/${this.claims}`;
      let accounts;
      try {
        accounts = await claimDueAccounts(store.db, store.caps, { platform, owner, now: clock.now(), leaseMs: settings.leaseMs, limit, resolved });
      } catch (error) {
        await gate.cancel(ticket);
        throw error;
      }
      if (accounts.length === 0) {
        await gate.cancel(ticket);
        // Another worker took the last unresolved names: look again for resolved ones.
        return !resolved;
      }
      try {
        const result = await checkBatch({ ...this.shared, lane, owner }, accounts, resolved, ticket);
        reads = result.reads;
        this.batches += 1;
        this.checked += result.checked;
        report.checked += result.checked;
        report.released += result.released;
        report.leaseLost += result.leaseLost;
        if (result.unauthorized) this.pause(lane, clock.now() + PAUSE_MS, 'the platform refused our credentials');
      } catch (error) {
        const ids = accounts.map((a) => a.id);
        if (this.abort.signal.aborted) {
          report.released += await releaseLeases(store.db, owner, ids).catch(() => 0);
        } else {
          // Whatever broke (the store refused a value, a bug), do not claim the same batch again at once.
          logger.error({ err: error, platform }, 'batch failed; its accounts are retried in a minute');
          report.released += await deferAccounts(store.db, owner, ids, clock.now() + BATCH_FAILURE_DELAY_MS).catch(() => 0);
        }
      }
      return true;
    } finally {
      if (reservation) await lane.budget?.settle(reservation, reads).catch((error: unknown) => logger.warn({ err: error }, 'could not settle the read budget'));
    }
  }

  private pause(lane: Lane, until: number, reason: string): void {
    if (lane.pausedUntil < until) this.options.logger.warn({ platform: lane.client.platform, until: new Date(until).toISOString(), reason }, 'platform paused');
    lane.pausedUntil = until;
    lane.pauseReason = reason;
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
    await releaseTrackerLeases(this.options.store.db, this.owner).catch(() => 0);
    await this.heartbeat.stop();
  }

  status(): TrackerStatus {
    const now = this.options.clock.now();
    const iso = (ms: number) => (ms <= now ? null : new Date(ms).toISOString());
    const platforms: TrackerStatus['platforms'] = {};
    for (const lane of this.lanes) {
      platforms[lane.client.platform] = {
        configured: lane.client.configured,
        pausedUntil: iso(lane.pausedUntil),
        pauseReason: lane.pausedUntil > now ? lane.pauseReason : null,
        lookup: lane.gates.lookup_by_id.snapshot(),
        posts: lane.gates.posts.snapshot(),
        budget: lane.budget?.snapshot() ?? null,
      };
    }
    const lastTickAt = this.lastTickAt === null ? null : new Date(this.lastTickAt).toISOString();
    return { running: this.running !== null && !this.stopping, owner: this.owner, lastTickAt, lastTickMs: this.lastTickMs, ticks: this.ticks, platforms };
  }
}
