// Readiness and liveness. Public, so the bodies say nothing secret: no paths, no error texts.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';

const Check = Type.Object({ status: Type.Union([Type.Literal('pass'), Type.Literal('warn'), Type.Literal('fail')]) }, { additionalProperties: true });
const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('pass'), Type.Literal('warn'), Type.Literal('fail')]),
    version: Type.String(),
    role: Type.String({ description: 'What this process runs: serve (API and tracker) or api.' }),
    checks: Type.Object({ store: Check, tracker: Check }),
  },
  { examples: [{ status: 'pass', version: '0.1.0', role: 'serve', checks: { store: { status: 'pass', observedMs: 1 }, tracker: { status: 'pass', enabled: false } } }] },
);

const STORE_TIMEOUT_MS = 2_000;

export default async function healthRoutes(app: FastifyInstance, deps: AppDeps) {
  app.get('/api/health', {
    config: { access: 'public', rateLimit: false },
    schema: {
      summary: 'Readiness',
      description: 'Whether this process can serve: the store answers, and the state of the tracker. 200 for pass and warn, 503 for fail. Content type application/health+json.',
      tags: ['health'],
      response: { 200: Health, 503: Health },
    },
    handler: async (_request, reply) => {
      const started = performance.now();
      let store: 'pass' | 'fail' = 'pass';
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          deps.store.caps.ping(deps.store.reader),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('store timeout')), STORE_TIMEOUT_MS);
          }),
        ]);
      } catch {
        store = 'fail';
      } finally {
        clearTimeout(timer);
      }
      const observedMs = Math.round(performance.now() - started);
      const status = store === 'fail' ? 'fail' : 'pass';
      const body = {
        status,
        version: deps.version,
        role: deps.role,
        checks: { store: { status: store, observedMs }, tracker: { status: 'pass' as const, enabled: false } },
      };
      return reply.code(status === 'fail' ? 503 : 200).type('application/health+json').send(body);
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
