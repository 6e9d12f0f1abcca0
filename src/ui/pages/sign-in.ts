// Sign-in and sign-out: an API key exchanged for a session cookie. The key is posted once in a
// form and never kept by the browser (autocomplete off, no storage, no cookie holding it).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PerchError } from '../../domain/errors.ts';
import { clientKey } from '../../limits/client-address.ts';
import { signIn, signOut, type SessionDeps } from '../../services/ui-sessions.ts';
import { FormBody, Query, Text } from '../forms.ts';
import { html } from '../html.ts';
import { layout, notice, sendPage } from '../layout.ts';
import { clearSessionCookie, postedFromHere, setSessionCookie } from '../session.ts';

const REFUSED = {
  invalid: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
  expired: 'The API key has expired.',
} as const;

/** Only a plain path of the dashboard itself may be the place to go back to after signing in. */
const NEXT = /^\/ui\/(?![/\\])[\w\-./?=&%~+,:@]*$/;
function safeNext(next: string | undefined): string {
  return next !== undefined && next.length <= 1_000 && NEXT.test(next) ? next : '/ui/';
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

const NextQuery = Query({ next: Type.Optional(Text(2_000)) });
const SignInBody = FormBody({ apiKey: Type.Optional(Text(1_000)), next: Type.Optional(Text(2_000)) });

export function registerSignIn(root: FastifyInstance, sessions: SessionDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'public' } } as const;

  app.get('/ui/sign-in', { ...route, schema: { querystring: NextQuery } }, async (request, reply) => {
    const next = safeNext(request.query.next);
    if (request.uiSession) return reply.redirect(next, 303);
    return sendPage(reply, signInPage(null, next));
  });

  app.post('/ui/sign-in', { ...route, schema: { body: SignInBody } }, async (request, reply) => {
    const next = safeNext(request.body.next);
    // Another site's form would sign this browser in to a session of the attacker's choosing.
    if (!postedFromHere(request))
      throw new PerchError(
        'forbidden',
        'Sign in from the sign-in page of this dashboard; a form on another site may not.',
      );
    // A bad key through the form counts like one through the API (services/authenticate.ts).
    const result = await signIn(sessions, request.body.apiKey ?? '', clientKey(request.ip));
    if (!result.ok) {
      if (result.retryAfter > 0)
        throw new PerchError(
          'too_many_auth_failures',
          `Too many failed sign-ins from this address; retry in ${result.retryAfter} s.`,
        );
      return sendPage(reply, signInPage(REFUSED[result.reason], next), 401);
    }
    setSessionCookie(request, reply, result.token, result.session.expiresAt - sessions.clock.now());
    return reply.redirect(next, 303);
  });

  app.post(
    '/ui/sign-out',
    { config: { access: 'public', ui: 'app' }, schema: { body: FormBody({}) } },
    async (request, reply) => {
      if (request.uiToken) await signOut(sessions, request.uiToken);
      clearSessionCookie(request, reply);
      return reply.redirect('/ui/sign-in', 303);
    },
  );
}
