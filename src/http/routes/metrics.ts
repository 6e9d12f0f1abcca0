// Prometheus metrics in the text exposition format. Public like health, so scrapers need no key:
// it holds counts and timings only, never names, keys or error texts.
import { Type } from '@sinclair/typebox';
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
      response: {
        200: Type.String({
          description: 'Prometheus text exposition format (version 0.0.4).',
          examples: ['# HELP perch_accounts Tracked accounts by platform and status.\n# TYPE perch_accounts gauge\nperch_accounts{platform="x",status="active"} 1180\n'],
        }),
      },
    },
    handler: async (_request, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.metrics()),
  });
}
