// Who is signed in to the dashboard: the session cookie read on every request, the CSRF token
// checked on every state-changing one, and the role a page needs. The cookie holds a random token
// only (never the API key): HttpOnly, SameSite=Strict; over HTTPS also Secure and named with the
// `__Host-` prefix (no subdomain or plain-HTTP page can set or shadow it). The sign-in form itself
// is refused from another site (login CSRF: being signed in to someone else's session).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import type { Role } from '../domain/roles.ts';
import { csrfMatches, findSession, type SessionDeps, type UiSession } from '../services/ui-sessions.ts';

export const COOKIE = 'perch_session';
/** The name over HTTPS: the browser accepts it only Secure, with Path=/ and no Domain. */
export const HOST_COOKIE = `__Host-${COOKIE}`;

const cookieName = (request: FastifyRequest): string => (request.protocol === 'https' ? HOST_COOKIE : COOKIE);

/** Who may open a dashboard route: anyone (sign-in, assets), any signed-in key, or admin keys. */
export type UiAccess = 'public' | Role;

declare module 'fastify' {
  interface FastifyContextConfig {
    ui?: UiAccess;
    /** `multipart`: a multipart upload carries its CSRF field in the body, checked by the handler. */
    csrf?: 'multipart';
  }
  interface FastifyRequest {
    uiSession: UiSession | null;
    uiToken: string | null;
  }
}

/** The value of one cookie from the Cookie header. */
export function readCookie(request: FastifyRequest, name: string): string | null {
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return null;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeMs: number): void {
  const https = request.protocol === 'https';
  const where = https ? 'Path=/' : 'Path=/ui';
  reply.header(
    'set-cookie',
    `${cookieName(request)}=${token}; ${where}; HttpOnly; SameSite=Strict; Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}${https ? '; Secure' : ''}`,
  );
}

/**
 * Whether a form post comes from a page of this origin. Browsers send Sec-Fetch-Site (or at least
 * Origin) with every POST; a request with neither is no browser's and cannot be a forged one.
 */
export function postedFromHere(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin === `${request.protocol}://${request.host}`;
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  setSessionCookie(request, reply, '', 0);
}

/** The signed-in session of a route that requires one. */
export function sessionOf(request: FastifyRequest): UiSession {
  if (request.uiSession === null) throw new PerchError('internal', 'dashboard route used without a session');
  return request.uiSession;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The `_csrf` field of a parsed form body, if it has one. */
const csrfFieldOf = (body: unknown): unknown =>
  body !== null && typeof body === 'object' && '_csrf' in body ? body._csrf : undefined;

export function registerSessions(app: FastifyInstance, sessions: SessionDeps): void {
  app.decorateRequest('uiSession', null);
  app.decorateRequest('uiToken', null);
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return;
    const access = request.routeOptions.config.ui ?? 'admin';
    // Assets are the same for everyone: no session lookup for them.
    if (request.url.startsWith('/ui/assets/')) return;
    const token = readCookie(request, cookieName(request));
    if (token) {
      request.uiToken = token;
      request.uiSession = await findSession(sessions, token);
    }
    if (access === 'public') return;
    if (request.uiSession === null) {
      if (token) clearSessionCookie(request, reply);
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
      return reply.redirect(`/ui/sign-in${next}`, 303);
    }
    if (access === 'admin' && request.uiSession.role !== 'admin') {
      throw new PerchError(
        'forbidden',
        'This needs an admin key; you are signed in with an app key, which can only read.',
      );
    }
  });
  // After the body is parsed and before it is validated (a forged form learns nothing from its
  // validation): a form carries the token in `_csrf`, a script in `x-csrf-token`.
  app.addHook('preValidation', async (request) => {
    if (!STATE_CHANGING.has(request.method) || request.uiSession === null) return;
    if (request.routeOptions.config.csrf === 'multipart' && request.isMultipart()) return;
    const presented = request.headers['x-csrf-token'] ?? csrfFieldOf(request.body);
    if (!csrfMatches(request.uiSession, presented)) {
      throw new PerchError(
        'forbidden',
        'This request is missing its CSRF token or it does not match your session; reload the page and try again.',
      );
    }
  });
}
