// Sign-in and sign-out: an API key exchanged for a session cookie. The key is posted once in a
// form and never kept by the browser (autocomplete off, no storage, no cookie holding it).
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import type { AppDeps } from '../../http/deps.ts';
import { clientKey } from '../../limits/client-address.ts';
import { signIn, signOut } from '../../services/ui-sessions.ts';
import { html } from '../html.ts';
import { layout, notice } from '../layout.ts';
import { clearSessionCookie, setSessionCookie } from '../session.ts';

const REFUSED = {
  invalid: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key has expired.',
} as const;

/** Only a plain path of the dashboard itself may be the place to go back to after signing in. */
const NEXT = /^\/ui\/(?![/\\])[\w\-./?=&%~+,:@]*$/;
function safeNext(next: unknown): string {
  return typeof next === 'string' && next.length <= 1_000 && NEXT.test(next) ? next : '/ui/';
}

function signInPage(error: string | null, next: string) {
  return layout({
    title: 'Sign in',
    session: null,
    body: html`<section class="sign-in">
<h1>Sign in to perch</h1>
<p>Use an API key. It is exchanged for a session and not kept by your browser.</p>
${notice('error', error)}
<form method="post" action="/ui/sign-in">
  <input type="hidden" name="next" value="${next}">
  <label for="api-key">API key</label>
  <input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck="false" required autofocus>
  <button type="submit">Sign in</button>
</form>
</section>`,
  });
}

export function registerSignIn(app: FastifyInstance, deps: AppDeps): void {
  const sessionDeps = {
    store: deps.store,
    clock: deps.clock,
    authenticator: deps.authenticator,
    ttlMs: deps.config.uiSessionTtlMs,
  };

  app.get('/ui/sign-in', { config: { access: 'public', ui: 'public' } }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next);
    if (request.uiSession) return reply.redirect(next, 303);
    return reply.type('text/html; charset=utf-8').send(signInPage(null, next).text);
  });

  app.post('/ui/sign-in', { config: { access: 'public', ui: 'public' } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const next = safeNext(body.next);
    const now = deps.clock.now();
    const key = typeof body.apiKey === 'string' ? body.apiKey : '';
    const result = key === '' ? ({ ok: false, reason: 'invalid' } as const) : await signIn(sessionDeps, key);
    if (!result.ok) {
      // A bad key through the form counts like one through the API (limits/failure-throttle.ts).
      const wait = await deps.throttle.recordFailure(clientKey(request.ip), now);
      if (wait > 0)
        throw new PerchError(
          'too_many_auth_failures',
          `Too many failed sign-ins from this address; retry in ${wait} s.`,
        );
      return reply.code(401).type('text/html; charset=utf-8').send(signInPage(REFUSED[result.reason], next).text);
    }
    setSessionCookie(request, reply, result.token, result.session.expiresAt - now);
    return reply.redirect(next, 303);
  });

  app.post('/ui/sign-out', { config: { access: 'public', ui: 'app' } }, async (request, reply) => {
    if (request.uiToken) await signOut(deps.store, request.uiToken);
    clearSessionCookie(request, reply);
    return reply.redirect('/ui/sign-in', 303);
  });
}
