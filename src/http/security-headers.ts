// Response headers every answer carries: no sniffing, no framing, no caching of API data,
// and a shutdown gate that answers 503 while the process drains.
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import { sendProblem } from './errors.ts';

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-request-id', String(request.id));
    if (request.url.startsWith('/api/docs')) {
      reply.header('content-security-policy', "frame-ancestors 'none'");
    } else {
      reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
      reply.header('cache-control', 'no-store');
    }
    return payload;
  });
}

/** Once closing starts, requests still arriving on open connections get 503 and a closed connection. */
export function registerShutdownGate(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (closing) return sendProblem(reply, new PerchError('shutting_down', 'The server is shutting down; retry on another instance or shortly.'), { connection: 'close', 'retry-after': '5' });
  });
}
