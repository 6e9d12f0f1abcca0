// Listening and stopping: `perch serve`, `perch api` and `perch worker` run the composed app until
// SIGTERM or SIGINT, then drain and exit.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { composeApp } from './compose.ts';
import type { AppDeps } from './http/deps.ts';
import { createLogger } from './logger.ts';

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
