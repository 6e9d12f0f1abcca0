// METRICS_PORT: /metrics alone on its own listener, so scrapers reach it from inside the network
// while the API port faces clients. It serves nothing else and never touches the store but for the
// counts (cached: routes/metrics.ts).
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { buildErrorHandler, type StoreErrors } from './errors.ts';
import metricsRoutes, { type MetricsRouteDeps } from './routes/metrics.ts';

export async function buildMetricsServer(
  storeErrors: StoreErrors,
  metrics: MetricsRouteDeps,
  logger: FastifyBaseLogger,
): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: logger, disableRequestLogging: true, requestTimeout: 10_000 });
  app.setErrorHandler(buildErrorHandler(storeErrors));
  await app.register(metricsRoutes, metrics);
  return app;
}
