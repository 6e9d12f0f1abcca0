// The tracker: one polling loop per platform (one platform waiting for its rate limit never holds
// up another). Each loop runs a round of the lane's policy (lane-round.ts: claim due batches and
// check them), then waits until its next account is due, notify() is called, or the store says
// another process made accounts due (PostgreSQL LISTEN/NOTIFY). stop() stops claiming, lets running
// batches finish for a grace period, then aborts them (their leases are released).
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { SleepingClock } from '../clock.ts';
import type { Platform } from '../domain/platforms.ts';
import type { TrackerStatus, TrackerView } from '../domain/tracker-status.ts';
import type { PlatformClient } from '../platforms/types.ts';
import { nextDueAt, releaseTrackerLeases } from '../storage/leases-repo.ts';
import type { Store } from '../storage/store.ts';
import { AlertRuleBook } from './alert-rulebook.ts';
import { FollowerNamer } from './follower-names.ts';
import { NO_METRICS, type TrackerContext, type TrackerMetrics, type TrackerSettings } from './context.ts';
import { Heartbeat } from './heartbeat.ts';
import { createLane, drainGates, laneStatus, type Lane } from './lane.ts';
import { runRound, type RoundDeps, type RoundReport } from './lane-round.ts';
import { PollingLoop } from '../loop.ts';
import { followerWaitMs, runFollowerRound, type FollowerJobDeps, type FollowerRoundReport } from './follower-passes.ts';
import type { SpendPlan } from '../limits/spend-plan.ts';

/** An idle lane looks for due work at least this often (a store that cannot notify, a lost notification). */
const IDLE_POLL_MS = 5_000;

export interface TrackerOptions {
  store: Store;
  clients: readonly PlatformClient[];
  clock: SleepingClock;
  settings: TrackerSettings;
  logger: Logger;
  /** Budget meters and rate card per platform that bills reads (X); absent = unmetered and free. */
  spendPlans?: Partial<Record<Platform, SpendPlan>>;
  metrics?: TrackerMetrics;
  random?: () => number;
  owner?: string;
  /** What the process runs, for the heartbeat: `serve` (API and tracker) or `worker`. */
  role?: string;
  /** How often an idle lane looks for due work without being woken (IDLE_POLL_MS by default). */
  idlePollMs?: number;
}

export type TickReport = RoundReport;

/** Reports through the status shape in domain/tracker-status.ts, which health and metrics read. */
export class Tracker implements TrackerView {
  readonly owner: string;
  private readonly options: TrackerOptions;
  private readonly lanes: Lane[];
  private readonly loops: PollingLoop[] = [];
  private readonly round: RoundDeps;
  private readonly abort = new AbortController();
  private stopping = false;
  private started = false;
  private stopped: Promise<void> | null = null;
  private dueListener: Promise<{ close(): Promise<void> } | null> | null = null;
  private lastTickAt: number | null = null;
  private lastTickMs: number | null = null;
  private ticks = 0;
  private claims = 0;
  /** Accounts checked and batches done since start, reported by the heartbeat. */
  private checked = 0;
  private batches = 0;
  private readonly heartbeat: Heartbeat;
  private readonly followerJob: FollowerJobDeps | null;

  constructor(options: TrackerOptions) {
    this.options = options;
    this.owner = options.owner ?? `tracker-${randomUUID()}`;
    // Every request in flight and every waiter listens to the one stop signal.
    setMaxListeners(1_000, this.abort.signal);
    this.lanes = options.clients.map((client) =>
      createLane(client, options.store, options.clock, options.logger, options.spendPlans?.[client.platform]),
    );
    this.heartbeat = new Heartbeat(
      options.store,
      options.clock,
      options.logger,
      { owner: this.owner, role: options.role ?? 'serve' },
      () => ({ checks: this.checked, batches: this.batches }),
    );
    const shared: Omit<TrackerContext, 'lane' | 'owner'> = {
      store: options.store,
      clock: options.clock,
      settings: options.settings,
      metrics: options.metrics ?? NO_METRICS,
      logger: options.logger,
      random: options.random ?? Math.random,
      alertRules: new AlertRuleBook(options.logger),
      signal: this.abort.signal,
    };
    const followers = options.settings.followers;
    this.followerJob = followers && {
      ...shared,
      lanes: this.lanes,
      settings: followers,
      namer: new FollowerNamer(),
      nextOwner: () => `${this.owner}/f${++this.claims}`,
      stopping: () => this.stopping,
    };
    this.round = {
      shared,
      nextOwner: () => `${this.owner}/${++this.claims}`,
      stopping: () => this.stopping,
      onBatch: (report) => {
        this.batches += 1;
        this.checked += report.checked;
      },
    };
  }

  /** Runs every configured platform's loop in the background until stop(). */
  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    this.heartbeat.start();
    const { store, logger } = this.options;
    this.dueListener = store
      .listenForDue(
        () => this.notify(),
        (error) => logger.warn({ err: error }, "lost the store's due notifications; polling until they are back"),
      )
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not listen for due notifications; polling instead');
        return null;
      });
    for (const lane of this.lanes.filter((l) => l.client.configured)) {
      const loop = new PollingLoop(
        {
          round: () => this.runLane(lane, { checked: 0, released: 0, leaseLost: 0 }),
          waitMs: () => this.idleWait(lane),
          onError: (error) => logger.error({ err: error, platform: lane.client.platform }, 'tracker loop failed'),
        },
        this.options.clock,
      );
      this.loops.push(loop);
      loop.start();
    }
    const job = this.followerJob;
    if (job) {
      // Follower passes share the lanes' gates and budgets, on a loop of their own.
      const loop = new PollingLoop(
        {
          round: async () => void (await this.followerRound()),
          waitMs: () => followerWaitMs(store, this.options.clock),
          onError: (error) => logger.error({ err: error }, 'follower passes failed'),
        },
        this.options.clock,
      );
      this.loops.push(loop);
      loop.start();
    }
  }

  /** One round of follower passes: every due pass runs until it finishes or must wait (tests drive it so). */
  async followerRound(): Promise<FollowerRoundReport> {
    if (!this.followerJob) return {};
    const report = await runFollowerRound(this.followerJob);
    await Promise.all(this.lanes.map(drainGates));
    return report;
  }

  /** Wakes idle lanes at once (an import or a refresh made accounts due). */
  notify(): void {
    for (const loop of this.loops) loop.notify();
  }

  /** Checks every account due now on every configured platform; resolves when none is left (or on stop). */
  async tick(): Promise<TickReport> {
    const report: TickReport = { checked: 0, released: 0, leaseLost: 0 };
    await Promise.all(
      this.lanes
        .filter((lane) => lane.client.configured && lane.pausedUntil <= this.options.clock.now())
        .map((lane) => this.runLane(lane, report)),
    );
    return report;
  }

  private async runLane(lane: Lane, report: RoundReport): Promise<void> {
    if (lane.pausedUntil > this.options.clock.now()) return;
    const started = performance.now();
    await runRound(lane, this.round, report);
    await drainGates(lane);
    this.lastTickAt = this.options.clock.now();
    this.lastTickMs = Math.round(performance.now() - started);
    this.ticks += 1;
  }

  /** How long an idle lane sleeps: until its pause ends, or its next account is due, or the poll. */
  private async idleWait(lane: Lane): Promise<number> {
    const { clock, store, logger } = this.options;
    const now = clock.now();
    const poll = this.options.idlePollMs ?? IDLE_POLL_MS;
    if (lane.pausedUntil > now) return Math.min(poll, lane.pausedUntil - now);
    try {
      const due = await nextDueAt(store.reader, [lane.client.platform], now);
      return due === null ? poll : Math.min(poll, due - now);
    } catch (error) {
      logger.warn({ err: error }, 'could not read the next due time');
      return poll;
    }
  }

  /** Stops claiming; running batches get `graceMs` to finish, then are aborted and their leases released. */
  stop(graceMs = 5_000): Promise<void> {
    this.stopped ??= this.shutdown(graceMs);
    return this.stopped;
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    const running = Promise.all(this.loops.map((loop) => loop.stop()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.abort.abort();
    await running;
    await Promise.all(this.lanes.map(drainGates));
    await (await this.dueListener)?.close();
    await releaseTrackerLeases(this.options.store.db, this.owner).catch(() => 0);
    await this.heartbeat.stop();
  }

  status(): TrackerStatus {
    const now = this.options.clock.now();
    const platforms: TrackerStatus['platforms'] = {};
    for (const lane of this.lanes) platforms[lane.client.platform] = laneStatus(lane, now);
    const lastTickAt = this.lastTickAt === null ? null : new Date(this.lastTickAt).toISOString();
    return {
      running: this.started && !this.stopping,
      owner: this.owner,
      lastTickAt,
      lastTickMs: this.lastTickMs,
      ticks: this.ticks,
      platforms,
    };
  }
}
