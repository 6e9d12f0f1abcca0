// Listening and stopping: `perch serve`, `perch api` and `perch worker` run the composed app until
// SIGTERM or SIGINT, then drain and exit.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { composeApp } from './compose.ts';
import type { Role } from './app-deps.ts';
import { createLogger, flushLogger } from './logger.ts';
import { deliverFirstAdminKey, keyFileDir } from './services/bootstrap-admin.ts';
import { announceServer, localUrl } from './services/running-server.ts';

/**
 * `perch serve`, `perch api` and `perch worker`: listen until SIGTERM or SIGINT, then drain and
 * exit 0. A worker runs the tracker and serves only health and metrics, on WORKER_PORT if set
 * (scale-out: any number of them beside `perch api` processes, on one PostgreSQL).
 */
export async function runServer(config: Config, role: Role): Promise<void> {
  const logger = createLogger(config.logLevel);
  const { app, firstAdminKey, tracker, metricsApp, background } = await composeApp(config, { logger, role });
  if (firstAdminKey !== null) {
    // Never sent to the logger: on a terminal it is printed; otherwise it goes to an owner-only file.
    deliverFirstAdminKey(firstAdminKey, {
      terminal: process.stdout.isTTY ? process.stdout : null,
      dir: keyFileDir(config),
      log: logger,
    });
  }
  let withdraw = () => {};
  if (role !== 'worker') {
    await app.listen({ port: config.port, host: config.host });
    // On SQLite, `perch import FILE` finds this server and sends the file through it.
    const address = app.server.address();
    if (config.dataDir !== null && typeof address === 'object' && address !== null)
      withdraw = announceServer(config.dataDir, localUrl(config.host, address.port));
  } else if (config.workerPort !== null) await app.listen({ port: config.workerPort, host: config.host });
  await metricsApp?.listen({ port: config.metricsPort ?? 0, host: config.host });
  background.start();
  if (role === 'worker' && tracker) logger.info({ owner: tracker.owner }, 'worker started');
  onSignals(logger, config.shutdownTimeoutMs, async () => {
    withdraw();
    // The tracker stops claiming at once and finishes (or releases) its batches while HTTP drains.
    await Promise.all([background.stop(), app.close()]);
  });
}

/**
 * On SIGTERM or SIGINT: run `stop` once, then exit 0. At the deadline (SHUTDOWN_TIMEOUT) exit 1
 * anyway, so a supervisor can tell a clean stop from one that left requests or batches open.
 */
function onSignals(logger: Logger, deadlineMs: number, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // process.exit writes out what the logger still holds (pino flushes on `exit`); a clean stop
    // waits for it first, so that the last lines are not left to that.
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown deadline reached; exiting with work still open');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    try {
      await stop();
      logger.info('stopped');
      await flushLogger(logger);
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      await flushLogger(logger);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void handle('SIGTERM'));
  process.on('SIGINT', () => void handle('SIGINT'));
}
