// Composition: open the store, build the services, the tracker and the app from the configuration.
// Builds, never listens (serve.ts does), so tests compose the real app in-process.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import type { AppDeps, Role } from './app-deps.ts';
import { PERCH_HOME } from './perch-home.ts';
import { StoreFailureThrottle } from './limits/failure-throttle.ts';
import { KeyAuthenticator } from './services/api-keys.ts';
import { ensureAdminKey } from './services/bootstrap-admin.ts';
import { commandServices, type Services } from './services/services.ts';
import { adminKeyFingerprint } from './services/ui-sessions.ts';
import { createMetrics } from './metrics.ts';
import { collectGarbageSoon } from './memory.ts';
import { buildMetricsServer } from './http/metrics-server.ts';
import { startRetention } from './services/retention.ts';
import { resolveKeyHashSecret } from './storage/key-secret.ts';
import { SERVER_BUSY_TIMEOUT_MS, openStore } from './storage/store.ts';
import type { Tracker } from './tracker/tracker.ts';
import type { Deliverer } from './webhooks/deliverer.ts';
import type { Mailer } from './notify/mailer.ts';
import type { BlueskyStream } from './stream/bluesky-stream.ts';
import type { FollowStream } from './stream/follow-stream.ts';
import type { DigestScheduler } from './notify/digest-scheduler.ts';
import { backgroundOf, type Background } from './background.ts';
import { systemClock, type Clock, type SleepingClock } from './clock.ts';
import { readSpend } from './services/spend.ts';

export const VERSION = (JSON.parse(readFileSync(join(PERCH_HOME, 'package.json'), 'utf8')) as { version: string })
  .version;

export interface ComposeOptions {
  logger: Logger;
  clock?: Clock;
  /** The tracker's clock (tests pass one whose sleeps move virtual time). */
  trackerClock?: SleepingClock;
  role?: Role;
  /** Tests: the stream's shard size (10,000 otherwise). */
  streamShardSize?: number;
}

/**
 * Builds everything the app needs from the configuration. With role `worker`, or `serve` and
 * TRACKER on, it also builds the tracker, but does not start it (runServer does; tests drive it by hand).
 * Closing the app stops its background parts (`background`, which runServer starts) and closes the store.
 */
export async function composeApp(
  config: Config,
  options: ComposeOptions,
): Promise<{
  app: FastifyInstance;
  deps: AppDeps;
  firstAdminKey: string | null;
  tracker: Tracker | null;
  metricsApp: FastifyInstance | null;
  deliverer: Deliverer | null;
  mailer: Mailer | null;
  stream: BlueskyStream | null;
  followStream: FollowStream | null;
  digestScheduler: DigestScheduler | null;
  background: Background;
}> {
  const clock = options.clock ?? systemClock;
  const store = await openStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS,
    preparedStatements: config.preparedStatements,
    onConnectionError: (error) =>
      options.logger.warn({ err: error }, 'store connection lost; it is replaced on the next use'),
  });
  try {
    // Dollar figures only where the metrics are not public (a key, or a port of their own).
    const spendOnMetrics = config.metricsKey !== null || config.metricsPort !== null;
    const metrics = createMetrics(
      store,
      clock,
      config.metricsIntervalMs,
      spendOnMetrics ? () => readSpend(store, config, clock.now()) : undefined,
    );
    const role = options.role ?? 'serve';
    const runsTracker = role === 'worker' || (role === 'serve' && config.tracker);
    // The tracker and the deliverer (and what they load: platform clients, text models) are
    // imported only by the processes that run them, so `perch api` does without them.
    let tracker: Tracker | null = null;
    if (runsTracker) {
      const { createTracker } = await import('./tracker/create-tracker.ts');
      tracker = createTracker(config, store, options.logger, {
        ...(options.trackerClock ? { clock: options.trackerClock } : {}),
        metrics: metrics.tracker,
        role,
      });
    }
    // The stream runs where the tracker does (it wakes it), unless BLUESKY_JETSTREAM_URL is off.
    let stream: BlueskyStream | null = null;
    let followStream: FollowStream | null = null;
    if (tracker && config.blueskyJetstreamUrls.length > 0) {
      const { createBlueskyStream, createFollowStream } = await import('./stream/create-stream.ts');
      const running = tracker;
      const build = {
        owner: running.owner,
        role: role === 'worker' ? ('worker' as const) : ('serve' as const),
        wakeTracker: () => running.notify(),
        metrics: metrics.stream,
        ...(options.streamShardSize ? { shardSize: options.streamShardSize } : {}),
      };
      stream = createBlueskyStream(config, store, options.logger, build);
      // Live follower changes between passes, where follower lists are kept (DESIGN §11).
      followStream = createFollowStream(config, store, options.logger, build);
    }
    const keyHashSecret = resolveKeyHashSecret(config.keyHashSecret, config.dataDir);
    // Webhooks are delivered by the processes that run the tracker's role: `perch serve` and `perch worker`.
    let deliverer: Deliverer | null = null;
    if (role !== 'api') {
      const { createDeliverer } = await import('./webhooks/create-deliverer.ts');
      deliverer = createDeliverer(config, store, options.logger, keyHashSecret, {
        ...(options.trackerClock ? { clock: options.trackerClock } : {}),
        metrics: metrics.webhooks,
      });
    }
    // Mail goes out from the same processes, when SMTP_URL is set.
    let mailer: Mailer | null = null;
    if (role !== 'api' && config.smtpUrl !== null) {
      const { createMailer } = await import('./notify/create-mailer.ts');
      mailer = createMailer(config, store, options.logger, options.trackerClock ? { clock: options.trackerClock } : {});
    }
    // Digests are sent where mail is: without SMTP they are previews only.
    let digestScheduler: DigestScheduler | null = null;
    if (mailer !== null) {
      const { DigestScheduler } = await import('./notify/digest-scheduler.ts');
      const sender = mailer;
      digestScheduler = new DigestScheduler(
        { store, clock: options.trackerClock ?? systemClock, mailOn: true },
        () => sender.notify(),
        options.logger.child({ component: 'digests' }),
      );
    }
    const authenticator = new KeyAuthenticator(store.reader, store.db, {
      secret: keyHashSecret,
      envAdminKey: config.adminApiKey,
      cacheTtlMs: config.keyCacheTtlMs,
      clock,
      onTouchError: (error) => options.logger.warn({ err: error }, 'could not record key use'),
    });
    const throttle = new StoreFailureThrottle(store.db, config.authFailuresPerMinute, options.logger, () =>
      clock.now(),
    );
    const auth = { authenticator, throttle, clock };
    // Built once: every route and page gets the ones it uses from app.ts and ui/routes.ts.
    const commands = commandServices(config, store, clock, keyHashSecret, authenticator, () => deliverer?.notify());
    const services: Services = {
      ...commands,
      imports: { ...commands.imports, afterLargeImport: () => collectGarbageSoon() },
      accounts: { store, clock, config },
      followers: { store, clock, config },
      auth,
      sessions: {
        store,
        clock,
        auth,
        ttlMs: config.uiSessionTtlMs,
        envAdminFingerprint:
          config.adminApiKey === null ? null : adminKeyFingerprint(config.adminApiKey, keyHashSecret),
      },
    };
    const deps: AppDeps = {
      config,
      services,
      store,
      clock,
      authenticator,
      keyHashSecret,
      tracker,
      deliverer,
      metrics: metrics.registry,
      role,
      version: VERSION,
    };
    // The first admin key is printed by a process that serves the API, not by a worker.
    const firstAdminKey = role === 'worker' ? null : await ensureAdminKey(store, config, keyHashSecret, clock);
    const app = await buildApp(deps, options.logger);
    const metricsApp =
      config.metricsPort === null
        ? null
        : await buildMetricsServer(
            store.caps,
            { registry: metrics.registry, metricsKey: config.metricsKey },
            options.logger,
          );
    const retention = startRetention(store, config.retention, clock, options.logger);
    const background = backgroundOf([tracker, deliverer, mailer, stream, followStream, digestScheduler]);
    app.addHook('onClose', async () => {
      await Promise.all([background.stop(), metricsApp?.close(), retention.stop()]);
      await store.close();
    });
    return {
      app,
      deps,
      firstAdminKey,
      tracker,
      metricsApp,
      deliverer,
      mailer,
      stream,
      followStream,
      digestScheduler,
      background,
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
