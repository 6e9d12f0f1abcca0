// `Expect: 100-continue` (RFC 9110 §10.1.1): Node answers `100 Continue` by itself before any hook
// runs, which invites the body of an upload the caller may not send. Here the request goes through
// authentication and rate limiting first; the client is told to continue only when its body is
// about to be read, so a refused upload is answered before a byte of it is sent.
import type { FastifyInstance, preParsingHookHandler } from 'fastify';
import { addHookToRoutes, takesBody } from './route-hooks.ts';

export function registerExpectContinue(app: FastifyInstance): void {
  // With a listener, Node leaves the interim response to us and does not emit 'request' itself.
  app.server.on('checkContinue', (request, response) => app.server.emit('request', request, response));
  // Only routes that read a body (GET and HEAD bodies are never read, so they get no 100 Continue).
  const continueBeforeBody: preParsingHookHandler = (request, reply, payload, done) => {
    const expect = request.headers.expect;
    if (typeof expect === 'string' && expect.toLowerCase() === '100-continue' && !reply.raw.headersSent)
      reply.raw.writeContinue();
    done(null, payload);
  };
  addHookToRoutes(app, 'preParsing', takesBody, continueBeforeBody);
}
