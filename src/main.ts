// Composition: open the store, build the services and the app, listen, and stop cleanly on signals.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { StoreFailureThrottle } from './http/auth-throttle.ts';
import type { AppDeps } from './http/deps.ts';
import { deriveKey } from './domain/sealed-box.ts';
import { createLogger } from './logger.ts';
import { KeyAuthenticator } from './services/api-keys.ts';
import { ensureAdminKey } from './services/bootstrap-admin.ts';
import { systemClock, type Clock } from './services/clock.ts';
import { createMetrics } from './metrics.ts';
import { resolveKeyHashSecret } from './storage/key-secret.ts';
import { openStore } from './storage/store.ts';
import { createTracker } from './tracker/create-tracker.ts';
import type { Tracker } from './tracker/tracker.ts';
import type { TrackerClock } from './tracker/tracker-clock.ts';

export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface ComposeOptions {
  logger: Logger;
  clock?: Clock;
  /** The tracker's clock (tests pass one whose sleeps move virtual time). */
  trackerClock?: TrackerClock;
  role?: AppDeps['role'];
}

/**
 * Builds everything the app needs from the configuration. With role `worker`, or `serve` and
 * TRACKER on, it also builds the tracker, but does not start it (runServer does; tests drive it by hand).
 * Closing the app stops the tracker and closes the store.
 */
export async function composeApp(config: Config, options: ComposeOptions): Promise<{ app: FastifyInstance; deps: AppDeps; firstAdminKey: string | null; tracker: Tracker | null }> {
  const clock = options.clock ?? systemClock;
  const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  try {
    const metrics = createMetrics(store, clock);
    const role = options.role ?? 'serve';
    const runsTracker = role === 'worker' || (role === 'serve' && config.tracker);
    const tracker = runsTracker ? createTracker(config, store, options.logger, { ...(options.trackerClock ? { clock: options.trackerClock } : {}), metrics: metrics.tracker, role }) : null;
    const keyHashSecret = resolveKeyHashSecret(config.keyHashSecret, config.dataDir);
    const authenticator = new KeyAuthenticator(store.reader, store.db, {
      secret: keyHashSecret,
      envAdminKey: config.adminApiKey,
      cacheTtlMs: config.keyCacheTtlMs,
      clock,
      onTouchError: (error) => options.logger.warn({ err: error }, 'could not record key use'),
    });
    const deps: AppDeps = {
      config,
      store,
      clock,
      authenticator,
      throttle: new StoreFailureThrottle(store, config.authFailuresPerMinute, options.logger),
      keyHashSecret,
      sealKey: deriveKey(keyHashSecret, 'idempotent-responses'),
      tracker,
      metrics: metrics.registry,
      role,
      version: VERSION,
    };
    // The first admin key is printed by a process that serves the API, not by a worker.
    const firstAdminKey = role === 'worker' ? null : await ensureAdminKey(store, config, keyHashSecret, clock);
    const app = await buildApp(deps, options.logger);
    app.addHook('onClose', async () => {
      await tracker?.stop();
      await store.close();
    });
    return { app, deps, firstAdminKey, tracker };
  } catch (error) {
    await store.close();
    throw error;
  }
}

const SHUTDOWN_DEADLINE_MS = 8_000;

/**
 * `perch serve`, `perch api` and `perch worker`: listen until SIGTERM or SIGINT, then drain and
 * exit 0. A worker runs the tracker and serves only health and metrics, on WORKER_PORT if set
 * (scale-out: any number of them beside `perch api` processes, on one PostgreSQL).
 */
export async function runServer(config: Config, role: AppDeps['role']): Promise<void> {
  const logger = createLogger(config.logLevel);
  const { app, firstAdminKey, tracker } = await composeApp(config, { logger, role });
  if (firstAdminKey !== null) {
    // Shown once, on the terminal only; never sent to the logger.
    process.stdout.write(
      `\n  First start: an admin API key was created. It is shown only this once; keep it safe:\n\n    ${firstAdminKey}\n\n` +
        `  Use it in the x-api-key header. Set ADMIN_API_KEY, or create more keys with \`perch keys create\`.\n\n`,
    );
  }
  if (role !== 'worker') await app.listen({ port: config.port, host: config.host });
  else if (config.workerPort !== null) await app.listen({ port: config.workerPort, host: config.host });
  tracker?.start();
  if (role === 'worker' && tracker) logger.info({ owner: tracker.owner }, 'worker started');
  onSignals(logger, async () => {
    // The tracker stops claiming at once and finishes (or releases) its batches while HTTP drains.
    await Promise.all([tracker?.stop(), app.close()]);
  });
}

/** On SIGTERM or SIGINT: run `stop` once, then exit 0 (or exit anyway at the deadline). */
function onSignals(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.warn('shutdown deadline reached; exiting with work still open');
      process.exit(0);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    try {
      await stop();
      logger.info('stopped');
      logger.flush?.();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void handle('SIGTERM'));
  process.on('SIGINT', () => void handle('SIGINT'));
}
