// Prometheus metrics in the text exposition format. Public like health, so scrapers need no key:
// it holds counts and timings only, never names, keys or error texts.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';

export default async function metricsRoutes(app: FastifyInstance, deps: AppDeps) {
  app.get('/metrics', {
    config: { access: 'public', rateLimit: false },
    schema: {
      summary: 'Prometheus metrics',
      description:
        'Platform requests by outcome, rate-limit waits, account checks, batch durations, accounts by status and accounts due, and process figures. Text exposition format.',
      tags: ['health'],
      produces: ['text/plain'],
    },
    handler: async (_request, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.metrics()),
  });
}
