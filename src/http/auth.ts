// Authentication and authorisation of every request, from the role its route declares.
// Runs at onRequest, before the body is read, so an unauthenticated upload is refused unread.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import { roleSatisfies, type RouteAccess } from '../domain/roles.ts';
import type { Principal } from '../services/api-keys.ts';
import { authenticate, type AuthDeps, type KeyRefusal } from '../services/authenticate.ts';
import { clientKey } from '../limits/client-address.ts';
import { sendProblem } from './errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route: `public`, any valid key (`app`), or `admin` only. */
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** Why a key is refused, as the problem the caller gets. */
const REFUSALS: Record<KeyRefusal, () => PerchError> = {
  invalid: () => new PerchError('invalid_api_key', 'The API key is not valid.'),
  revoked: () => new PerchError('api_key_revoked', 'The API key has been revoked.'),
  expired: () => new PerchError('api_key_expired', 'The API key has expired.'),
};

const CHALLENGE = { 'www-authenticate': 'ApiKey realm="perch", header="x-api-key"' };

export function registerAuth(app: FastifyInstance, auth: AuthDeps): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    // Unknown paths (404/405) have nothing to protect. A matched route that forgot to declare its
    // access fails closed, as admin-only (route-table.ts also refuses to start with one).
    if (request.is404) return;
    const access = request.routeOptions.config.access ?? 'admin';
    if (access === 'public') return;
    const presented = request.headers['x-api-key'];
    if (presented === undefined || presented === '') {
      return sendProblem(
        reply,
        new PerchError('missing_api_key', 'Send your API key in the x-api-key header.'),
        CHALLENGE,
      );
    }
    // Node joins repeated x-api-key headers with ", ", which no key contains: refused as invalid.
    const checked = await authenticate(auth, String(presented), clientKey(request.ip));
    if (!checked.ok) {
      // A failure past the limit tells nothing about the key.
      if (checked.retryAfter > 0) return tooManyFailures(reply, checked.retryAfter);
      return sendProblem(reply, REFUSALS[checked.reason](), CHALLENGE);
    }
    const { principal } = checked;
    if (!roleSatisfies(principal.role, access)) {
      return sendProblem(
        reply,
        new PerchError('forbidden', `This route needs the ${access} role; your key has the ${principal.role} role.`),
      );
    }
    request.principal = principal;
  });
}

function tooManyFailures(reply: FastifyReply, wait: number): FastifyReply {
  return sendProblem(
    reply,
    new PerchError('too_many_auth_failures', `Too many failed authentications from this client; retry in ${wait} s.`),
    { 'retry-after': String(wait) },
  );
}

/** The authenticated caller; routes that declare a role always have one. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new PerchError('internal', 'route used without authentication');
  return request.principal;
}

/** What the audit log records as the actor. */
export function actorOf(request: FastifyRequest): string {
  return principalOf(request).keyId;
}
