// Authentication and authorisation of every request, from the role its route declares.
// Runs at onRequest, before the body is read, so an unauthenticated upload is refused unread.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import { roleSatisfies, type RouteAccess } from '../domain/roles.ts';
import type { Principal } from '../services/api-keys.ts';
import { authenticate, authenticateCached, type AuthDeps, type KeyRefusal } from '../services/authenticate.ts';
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
  // With `done` (see app.ts): a key checked within the cache's TTL, as nearly every request carries,
  // is admitted without a promise; only the others wait for the store.
  app.addHook('onRequest', (request, reply, done) => {
    // Unknown paths (404/405) have nothing to protect. A matched route that forgot to declare its
    // access fails closed, as admin-only (route-table.ts also refuses to start with one).
    if (request.is404) return done();
    const access = request.routeOptions.config.access ?? 'admin';
    if (access === 'public') return done();
    const presented = request.headers['x-api-key'];
    if (presented === undefined || presented === '') {
      sendProblem(reply, new PerchError('missing_api_key', 'Send your API key in the x-api-key header.'), CHALLENGE);
      return;
    }
    // Node joins repeated x-api-key headers with ", ", which no key contains: refused as invalid.
    const known = authenticateCached(auth, String(presented));
    if (known !== null) {
      if (admit(request, reply, access, known)) done();
      return;
    }
    authenticate(auth, String(presented), () => clientKey(request.ip)).then((checked) => {
      if (checked.ok) {
        if (admit(request, reply, access, checked.principal)) done();
        return;
      }
      // A failure past the limit tells nothing about the key.
      if (checked.retryAfter > 0) tooManyFailures(reply, checked.retryAfter);
      else sendProblem(reply, REFUSALS[checked.reason](), CHALLENGE);
    }, done);
  });
}

/** Lets the caller through when its role suffices (true); answers 403 otherwise. */
function admit(request: FastifyRequest, reply: FastifyReply, access: RouteAccess, principal: Principal): boolean {
  if (!roleSatisfies(principal.role, access)) {
    sendProblem(
      reply,
      new PerchError('forbidden', `This route needs the ${access} role; your key has the ${principal.role} role.`),
    );
    return false;
  }
  request.principal = principal;
  return true;
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
