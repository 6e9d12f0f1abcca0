// Prometheus metrics: requests to each platform by outcome, rate-limit waits, checks, batch
// durations, and (read from the store at most once per METRICS_INTERVAL, however many scrape)
// accounts by status, accounts due and the trackers' shares.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PLATFORMS } from './domain/platforms.ts';
import { LOST_AFTER_MS } from './domain/tracker-status.ts';
import type { Clock } from './clock.ts';
import { createSnapshotCache } from './services/snapshot-cache.ts';
import type { Store } from './storage/store.ts';
import type { SpendSummary } from './services/spend.ts';
import type { SnapshotCache } from './services/snapshot-cache.ts';
import { recentTrackers } from './storage/tracker-processes-repo.ts';
import { countByStatus, countDue } from './storage/tracking-repo.ts';
import type { TrackerMetrics } from './tracker/context.ts';
import type { DeliveryMetrics } from './webhooks/deliver-one.ts';
import { webhookMetrics } from './webhooks/metrics.ts';
import { streamMetrics, type StreamMetrics } from './stream/metrics.ts';

export interface Metrics {
  registry: Registry;
  tracker: TrackerMetrics;
  webhooks: DeliveryMetrics;
  stream: StreamMetrics;
}

/** The store counts behind the gauges, read together so a scrape costs at most one round per interval. */
async function readStoreCounts(store: Store, now: number) {
  const [byStatus, due, trackers] = await Promise.all([
    countByStatus(store.reader),
    countDue(store.reader, PLATFORMS, now),
    recentTrackers(store.reader, now - LOST_AFTER_MS),
  ]);
  return { byStatus, due, trackers };
}

export function createMetrics(
  store: Store,
  clock: Clock,
  intervalMs = 15_000,
  readSpendNow: (() => Promise<SpendSummary>) | null = null,
): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'perch_' });
  const storeReads = new Counter({
    name: 'perch_metrics_store_reads_total',
    help: 'Times the counts shown here were read from the store (at most once per METRICS_INTERVAL, whatever the number of scrapers).',
    registers: [registry],
  });
  const counts = createSnapshotCache(
    () => {
      storeReads.inc();
      return readStoreCounts(store, clock.now());
    },
    intervalMs,
    clock,
  );
  const requests = new Counter({
    name: 'perch_platform_requests_total',
    help: 'Requests sent to a platform, by endpoint and outcome (ok, rate_limited, unavailable, bad_response, unauthorized, invalid_request).',
    labelNames: ['platform', 'endpoint', 'outcome'] as const,
    registers: [registry],
  });
  const waits = new Counter({
    name: 'perch_rate_limit_wait_seconds_total',
    help: 'Time spent waiting for a platform rate-limit window to reopen.',
    labelNames: ['platform'] as const,
    registers: [registry],
  });
  const checks = new Counter({
    name: 'perch_account_checks_total',
    help: 'Account checks by result (found, not_found, suspended, failed).',
    labelNames: ['platform', 'result'] as const,
    registers: [registry],
  });
  const readsSaved = new Counter({
    name: 'perch_stream_timeline_reads_saved_total',
    help: 'Timeline reads the tracker skipped because a healthy Jetstream shard brings those accounts’ posts.',
    labelNames: ['platform'] as const,
    registers: [registry],
  });
  const batches = new Histogram({
    name: 'perch_tracker_batch_duration_seconds',
    help: 'Time to check one claimed batch: lookup, timelines, analysis and write.',
    labelNames: ['platform'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  new Gauge({
    name: 'perch_accounts',
    help: 'Tracked accounts by platform and status.',
    labelNames: ['platform', 'status'] as const,
    registers: [registry],
    async collect() {
      const { byStatus } = await counts.get();
      this.reset();
      for (const row of byStatus) this.set({ platform: row.platform, status: row.status }, row.n);
    },
  });
  new Gauge({
    name: 'perch_accounts_due',
    help: 'Accounts due for a check now, including those being checked.',
    labelNames: ['platform'] as const,
    registers: [registry],
    async collect() {
      const { due } = await counts.get();
      this.reset();
      for (const [platform, n] of Object.entries(due)) this.set({ platform }, n);
    },
  });
  new Gauge({
    name: 'perch_tracker_process_checks',
    help: 'Accounts checked since start by each live tracker process (from the heartbeats in the store), so any process shows how the work is shared.',
    labelNames: ['tracker', 'role'] as const,
    registers: [registry],
    async collect() {
      const { trackers } = await counts.get();
      this.reset();
      // Hosts and pids stay out of a public endpoint; the tracker id is in the worker's start log line.
      for (const t of trackers) {
        if (t.stoppedAt === null) this.set({ tracker: t.owner, role: t.role }, t.checks);
      }
    },
  });
  if (readSpendNow) spendGauges(registry, createSnapshotCache(readSpendNow, intervalMs, clock));
  return {
    registry,
    webhooks: webhookMetrics(registry, store, clock),
    tracker: {
      platformRequest: (platform, endpoint, outcome) => requests.inc({ platform, endpoint, outcome }),
      rateLimitWait: (platform, ms) => {
        if (ms > 0) waits.inc({ platform }, ms / 1000);
      },
      batchDone: (platform, seconds) => batches.observe({ platform }, seconds),
      accountChecked: (platform, result) => checks.inc({ platform, result }),
      timelineReadsSaved: (platform, n) => readsSaved.inc({ platform }, n),
    },
    stream: streamMetrics(registry),
  };
}

/** X's spend from the ledger: today, this month, the projection, and each budget's limit and use. */
function spendGauges(registry: Registry, spend: SnapshotCache<SpendSummary>): void {
  new Gauge({
    name: 'perch_x_spend_usd',
    help: "What X billed (perch's ledger, after X's same-day deduplication), in US dollars, for the current UTC day or month.",
    labelNames: ['period'] as const,
    registers: [registry],
    async collect() {
      const s = await spend.get();
      this.set({ period: 'day' }, s.today.usd);
      this.set({ period: 'month' }, s.month.usd);
    },
  });
  new Gauge({
    name: 'perch_x_spend_projected_month_usd',
    help: "This month's X spend plus the recent pace for the days left, in US dollars.",
    registers: [registry],
    async collect() {
      const s = await spend.get();
      this.set(s.projectedMonthUsd ?? s.month.usd);
    },
  });
  new Gauge({
    name: 'perch_x_resources',
    help: 'Resources X billed (users, posts) in the current UTC day or month.',
    labelNames: ['kind', 'period'] as const,
    registers: [registry],
    async collect() {
      const s = await spend.get();
      for (const kind of ['users', 'posts'] as const) {
        this.set({ kind, period: 'day' }, s.today[kind]);
        this.set({ kind, period: 'month' }, s.month[kind]);
      }
    },
  });
  for (const [name, field] of [
    ['perch_x_budget_limit', 'limit'],
    ['perch_x_budget_remaining', 'remaining'],
  ] as const)
    new Gauge({
      name,
      help: `Each X budget's ${field} in its unit (reads, usd, posts) for its current period (day or month).`,
      labelNames: ['budget', 'unit', 'period'] as const,
      registers: [registry],
      async collect() {
        const s = await spend.get();
        this.reset();
        for (const b of s.budgets) this.set({ budget: b.name, unit: b.unit, period: b.period }, b[field]);
      },
    });
}
