// METRICS_PORT: /metrics alone on its own listener, so scrapers reach it from inside the network
// while the API port faces clients. It serves nothing else and never touches the store but for the
// counts (cached: routes/metrics.ts).
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';
import { buildErrorHandler } from './errors.ts';
import metricsRoutes from './routes/metrics.ts';

export async function buildMetricsServer(deps: AppDeps, logger: FastifyBaseLogger): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: logger, disableRequestLogging: true, requestTimeout: 10_000 });
  app.setErrorHandler(buildErrorHandler(deps.store.caps));
  await app.register(metricsRoutes, { deps, standalone: true });
  return app;
}
