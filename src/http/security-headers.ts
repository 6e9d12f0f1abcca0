// Response headers every answer carries: no sniffing, no framing, no caching of API data;
// a shutdown gate that answers 503 while the process drains; and a refusal of compressed bodies.
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { addHookToRoutes, takesBody } from './route-hooks.ts';
import { PerchError } from '../domain/errors.ts';
import { sendProblem } from './errors.ts';

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
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
    done(null, payload);
  });
}

/** Once closing starts, requests still arriving on open connections get 503 and a closed connection. */
export function registerShutdownGate(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // With `done` (see app.ts); answering from such a hook means not calling it.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    sendProblem(
      reply,
      new PerchError('shutting_down', 'The server is shutting down; retry on another instance or shortly.'),
      { connection: 'close', 'retry-after': '5' },
    );
  });
}

/** True when the request carries a body (announced by length or by chunked transfer). */
function hasBody(request: FastifyRequest): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

/** True when Content-Encoding names anything but `identity` (it may list several codings). */
function encoded(request: FastifyRequest): boolean {
  const header = request.headers['content-encoding'];
  if (header === undefined) return false;
  return header.split(',').some((coding) => !['', 'identity'].includes(coding.trim().toLowerCase()));
}

/**
 * No parser here inflates bodies, so a gzipped CSV would be read as text: refuse it before parsing,
 * with Accept-Encoding saying what would do (RFC 9110 §15.5.16).
 */
export function registerIdentityEncodingOnly(app: FastifyInstance): void {
  // On the routes that read a body only: unknown paths keep their 404/405, and a GET's body is never read.
  const identityOnly: onRequestHookHandler = (request, reply, done) => {
    if (!hasBody(request) || !encoded(request)) return done();
    sendProblem(
      reply,
      new PerchError(
        'unsupported_media_type',
        'Request bodies must not be compressed: send the body uncompressed, without Content-Encoding.',
      ),
      { 'accept-encoding': 'identity' },
    );
  };
  addHookToRoutes(app, 'onRequest', takesBody, identityOnly);
}
