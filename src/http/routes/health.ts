// Readiness and liveness. Public, so the bodies say nothing secret: no paths, error texts, hosts
// or pids. Any number of probes cost at most one ping in flight and one count per interval.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PLATFORMS } from '../../domain/platforms.ts';
import { LOST_AFTER_MS } from '../../domain/tracker-status.ts';
import {
  pingStore,
  readTrackerCounts,
  type TrackerCounts,
  type TrackerProcess,
} from '../../services/tracker-health.ts';
import { createSnapshotCache } from '../../services/snapshot-cache.ts';
import { webhooksHealth } from '../../services/webhooks-health.ts';
import { mailHealth } from '../../services/mail-health.ts';
import { streamHealth } from '../../services/stream-health.ts';
import { readSpend, type SpendSummary } from '../../services/spend.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { TrackerView } from '../../domain/tracker-status.ts';
import type { Store } from '../../services/context.ts';

export interface HealthRouteDeps {
  store: Store;
  clock: Clock;
  config: Config;
  tracker: TrackerView | null;
  /** What this process runs: serve, api or worker. */
  role: string;
  version: string;
}

const Check = Type.Object(
  { status: Type.Union([Type.Literal('pass'), Type.Literal('warn'), Type.Literal('fail')]) },
  { additionalProperties: true },
);
const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('pass'), Type.Literal('warn'), Type.Literal('fail')]),
    version: Type.String(),
    role: Type.String({
      description: 'What this process runs: serve (API and tracker), api, or worker (tracker only).',
    }),
    checks: Type.Object({
      store: Check,
      tracker: Check,
      webhooks: Type.Optional(Check),
      spend: Type.Optional(Check),
      mail: Type.Optional(Check),
      'bluesky-stream': Type.Optional(Check),
    }),
  },
  {
    examples: [
      {
        status: 'pass',
        version: '0.1.0',
        role: 'serve',
        checks: {
          store: { status: 'pass', observedMs: 1 },
          tracker: {
            status: 'pass',
            enabled: true,
            running: true,
            lastTickAt: '2026-11-23T12:00:00.000Z',
            due: 0,
            platforms: {},
          },
        },
      },
    ],
  },
);

const STORE_TIMEOUT_MS = 2_000;

/** Store counts in the tracker check are reused for this long: probes may come many times a second. */
const COUNTS_TTL_MS = 5_000;

/** Stopped or lost trackers stay listed this long, so an operator sees what went away. */
const RECENT_MS = 3_600_000;

/** Every tracker process of the deployment, from the heartbeats in the store. */
function trackerList(trackers: readonly TrackerProcess[], now: number) {
  return trackers.map((t) => ({
    id: t.owner,
    role: t.role,
    state: t.stoppedAt !== null ? 'stopped' : now - t.seenAt > LOST_AFTER_MS ? 'lost' : 'running',
    startedAt: new Date(t.startedAt).toISOString(),
    lastSeenAt: new Date(t.seenAt).toISOString(),
    checks: t.checks,
    batches: t.batches,
  }));
}

/**
 * The tracker's state. `warn` when X accounts are tracked without X credentials, or a platform is
 * paused (credentials refused, daily read budget spent), or a tracker process stopped answering.
 * Counts and the list of trackers come from the store, so `perch api` reports them even though its
 * trackers run elsewhere.
 */
function trackerCheck(deps: HealthRouteDeps, counts: TrackerCounts) {
  const notes: string[] = [];
  const trackers = trackerList(counts.trackers, deps.clock.now());
  // A lost tracker matters while it may still hold leases: until they expire, its batches wait.
  const now = deps.clock.now();
  const lost = counts.trackers.filter(
    (t) =>
      t.stoppedAt === null &&
      now - t.seenAt > LOST_AFTER_MS &&
      now - t.seenAt <= deps.config.trackLeaseMs + LOST_AFTER_MS,
  );
  if (lost.length > 0)
    notes.push(
      `${lost.length} tracker(s) not heard of for over ${LOST_AFTER_MS / 1000} s (${lost.map((t) => t.owner).join(', ')}): the accounts they held wait for their leases to expire`,
    );
  if (deps.config.xBearerToken === null && counts.xTracked)
    notes.push('X accounts are tracked but X_BEARER_TOKEN is not set: they are not checked');
  const status = deps.tracker?.status() ?? null;
  const platforms: Record<string, unknown> = {};
  for (const platform of PLATFORMS) {
    const lane = status?.platforms[platform];
    if (lane?.pauseReason) notes.push(`${platform} paused until ${lane.pausedUntil}: ${lane.pauseReason}`);
    platforms[platform] = {
      due: counts.due[platform] ?? 0,
      ...(lane
        ? {
            configured: lane.configured,
            pausedUntil: lane.pausedUntil,
            rateLimit: { lookup: lane.lookup, posts: lane.posts },
            readBudget: lane.budget,
          }
        : {}),
    };
  }
  return {
    status: notes.length > 0 ? ('warn' as const) : ('pass' as const),
    enabled: deps.tracker !== null,
    running: status?.running ?? false,
    ...(status ? { id: status.owner } : {}),
    lastTickAt: status?.lastTickAt ?? null,
    due: Object.values(counts.due).reduce((a, b) => a + b, 0),
    platforms,
    trackers,
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/**
 * X's spend (Bluesky is free): `warn` while a budget is spent, so a paused tracker is explained.
 * The body is public: each budget's state only, never a dollar figure (GET /api/admin/usage has them).
 */
function spendCheck(summary: SpendSummary) {
  const spent = summary.budgets.filter((b) => b.remaining <= 0);
  return {
    status: spent.length > 0 ? ('warn' as const) : ('pass' as const),
    budgets: summary.budgets.map((b) => ({
      name: b.name,
      period: b.period,
      state: b.remaining <= 0 ? ('spent' as const) : ('available' as const),
    })),
    ...(spent.length > 0 ? { notes: spent.map((b) => `X ${b.name} spent for this ${b.period}`) } : {}),
  };
}

export default async function healthRoutes(app: FastifyInstance, deps: HealthRouteDeps) {
  const readWebhooks = webhooksHealth(deps.store, deps.clock);
  const readMail = mailHealth(deps.store, deps.clock, deps.config.smtpUrl !== null);
  const readStream = streamHealth(deps.store, deps.clock, deps.config.blueskyJetstreamUrls.length > 0);
  const counts = createSnapshotCache(
    (): Promise<TrackerCounts> => {
      const now = deps.clock.now();
      return readTrackerCounts(deps.store, now, now - RECENT_MS);
    },
    COUNTS_TTL_MS,
    deps.clock,
  );
  const spend = createSnapshotCache(
    () => readSpend(deps.store, deps.config, deps.clock.now()),
    COUNTS_TTL_MS,
    deps.clock,
  );
  // Probes arriving together share one ping (interval 0: never reused once answered).
  const ping = createSnapshotCache(() => pingStore(deps.store, STORE_TIMEOUT_MS), 0, deps.clock);

  app.get('/api/health', {
    config: { access: 'public', rateLimit: false },
    schema: {
      summary: 'Readiness',
      description:
        'Whether this process can serve: the store answers, and the state of the tracker. 200 for pass and warn, 503 for fail. Content type application/health+json.',
      tags: ['health'],
      response: { 200: Health, 503: Health },
    },
    handler: async (_request, reply) => {
      const started = performance.now();
      const store = await ping.get().then(
        () => 'pass' as const,
        () => 'fail' as const,
      );
      const observedMs = Math.round(performance.now() - started);
      const unknown = { status: 'warn' as const, enabled: deps.tracker !== null };
      const tracker =
        store === 'pass'
          ? await counts.get().then(
              (c) => trackerCheck(deps, c),
              () => unknown,
            )
          : unknown;
      const webhooks =
        store === 'pass'
          ? await readWebhooks().catch(() => ({ status: 'warn' as const }))
          : { status: 'warn' as const };
      const mail =
        store === 'pass' ? await readMail().catch(() => ({ status: 'warn' as const })) : { status: 'warn' as const };
      const spent =
        store === 'pass'
          ? await spend.get().then(spendCheck, () => ({ status: 'warn' as const }))
          : { status: 'warn' as const };
      const stream = store === 'pass' ? await readStream() : { status: 'warn' as const };
      const checks = { tracker, webhooks, spend: spent, mail, 'bluesky-stream': stream };
      const warned = Object.values(checks).some((check) => check.status === 'warn');
      const status = store === 'fail' ? 'fail' : warned ? 'warn' : 'pass';
      const body = {
        status,
        version: deps.version,
        role: deps.role,
        checks: { store: { status: store, observedMs }, ...checks },
      };
      return reply
        .code(status === 'fail' ? 503 : 200)
        .type('application/health+json')
        .send(body);
    },
  });

  app.get('/api/health/live', {
    config: { access: 'public', rateLimit: false },
    schema: {
      summary: 'Liveness',
      description: 'The process answers. Touches nothing else, so it stays up while the store is down.',
      tags: ['health'],
      response: { 200: Type.Object({ status: Type.Literal('pass') }, { examples: [{ status: 'pass' }] }) },
    },
    handler: async (_request, reply) => reply.type('application/health+json').send({ status: 'pass' }),
  });
}
