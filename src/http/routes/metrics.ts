// Prometheus metrics in the text exposition format. It holds counts and timings only, never names,
// keys, hosts or error texts. Public unless METRICS_KEY is set (then `Authorization: Bearer KEY`);
// with METRICS_PORT it is served only on that port (metrics-server.ts), not beside the API.
import { timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import type { Registry } from 'prom-client';
import { sendProblem } from '../errors.ts';

export interface MetricsRouteDeps {
  registry: Registry;
  /** METRICS_KEY: then `Authorization: Bearer KEY` is required. */
  metricsKey: string | null;
}

function presentsKey(request: FastifyRequest, key: string): boolean {
  const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim() ?? '';
  const a = Buffer.from(given);
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Registered beside the API, or alone on the METRICS_PORT listener (metrics-server.ts). */
export default async function metricsRoutes(app: FastifyInstance, { registry, metricsKey: key }: MetricsRouteDeps) {
  app.get('/metrics', {
    config: { access: 'public', rateLimit: false },
    schema: {
      summary: 'Prometheus metrics',
      description:
        'Platform requests by outcome, rate-limit waits, account checks, batch durations, accounts by status and accounts due, and process figures. Text exposition format. With METRICS_KEY set, send `Authorization: Bearer <METRICS_KEY>`.',
      tags: ['health'],
      produces: ['text/plain'],
      response: {
        200: Type.String({
          description: 'Prometheus text exposition format (version 0.0.4).',
          examples: [
            '# HELP perch_accounts Tracked accounts by platform and status.\n# TYPE perch_accounts gauge\nperch_accounts{platform="x",status="active"} 1180\n',
          ],
        }),
      },
    },
    handler: async (request, reply) => {
      if (key !== null && !presentsKey(request, key)) {
        return sendProblem(
          reply,
          new PerchError('invalid_api_key', 'Send the metrics key as `Authorization: Bearer <METRICS_KEY>`.'),
          { 'www-authenticate': 'Bearer realm="perch-metrics"' },
        );
      }
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  });
}
