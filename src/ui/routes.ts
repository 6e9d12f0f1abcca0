// The dashboard, served by the same process under /ui: its hooks (sessions, CSRF, headers, error
// pages) and every page, listed here like app.ts lists the API's routes. Pages call services/.
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { TrackerView } from '../domain/tracker-status.ts';
import type { Store } from '../services/context.ts';
import type { Services } from '../services/services.ts';
import { problemOf, toPerchError } from '../http/errors.ts';
import { registerAssets } from './assets.ts';
import { html } from './html.ts';
import { layout, notice, sendPage } from './layout.ts';
import { registerAlertsPages } from './pages/alerts.ts';
import { registerAccountActions } from './pages/account-actions.ts';
import { registerAccountPage } from './pages/account.ts';
import { registerFollowerListSwitch } from './pages/account-followers.ts';
import { registerAccountsPage } from './pages/accounts.ts';
import { registerComparePage } from './pages/compare.ts';
import { registerImportPage } from './pages/import.ts';
import { registerKeysPage } from './pages/keys.ts';
import { registerOverview } from './pages/overview.ts';
import { registerEventsPage } from './pages/events.ts';
import { registerSignIn } from './pages/sign-in.ts';
import { registerWebhookPage } from './pages/webhook-deliveries.ts';
import { registerWebhooksPage } from './pages/webhooks.ts';
import { registerDigestsPage } from './pages/digests.ts';
import { PREVIEW_POLICY, registerDigestPage } from './pages/digest.ts';
import { registerMailLogPage } from './pages/mail-log.ts';
import { registerSessions } from './session.ts';

/** No inline script, no other host: scripts, styles and data come from this origin only. */
function contentSecurityPolicy(remoteImages: boolean): string {
  const images = remoteImages ? "'self' data: https:" : "'self' data:";
  return `default-src 'none'; script-src 'self'; style-src 'self'; img-src ${images}; connect-src 'self'; font-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

/** What the dashboard is given; each page gets the part it uses. */
export interface DashboardDeps {
  config: Config;
  services: Services;
  store: Store;
  clock: Clock;
  tracker: TrackerView | null;
}

/** Scripts ask for JSON; a browser navigating gets a page. */
const wantsJson = (request: FastifyRequest): boolean => (request.headers.accept ?? '').includes('application/json');

function errorPage(request: FastifyRequest, reply: FastifyReply, error: PerchError) {
  const problem = problemOf(error, String(request.id));
  if (wantsJson(request))
    return reply
      .code(problem.status)
      .type('application/problem+json; charset=utf-8')
      .serializer(JSON.stringify)
      .send(problem);
  const body = html`<h1>${problem.title}</h1>
${notice('error', problem.detail)}
<p><a href="/ui/">Back to the overview</a></p>`;
  return sendPage(reply, layout({ title: problem.title, session: request.uiSession, body }), problem.status);
}

export default async function uiRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { config, services, store, clock, tracker } = deps;
  const { accounts } = services;
  // Pages are not part of the API: the OpenAPI document leaves them out.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // Forms post url-encoded fields; only the dashboard reads them (the API speaks JSON).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 65_536 },
    (_request, body, done) => {
      // A repeated field (checkboxes) becomes a list of its values.
      const fields: Record<string, string | string[]> = {};
      for (const [name, value] of new URLSearchParams(String(body))) {
        const seen = fields[name];
        fields[name] = seen === undefined ? value : ([] as string[]).concat(seen, value);
      }
      done(null, fields);
    },
  );
  registerSessions(app, services.sessions);
  // Pages and assets are sent compressed when the browser accepts it (the API's answers are not:
  // this plugin is registered for the dashboard only). Pages mask their CSRF token (BREACH).
  await app.register(compress, {
    global: true,
    threshold: 1_024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
  const csp = contentSecurityPolicy(config.uiRemoteImages);
  // Runs after the app's own onSend hook, replacing the API's `default-src 'none'` for pages.
  // Fingerprinted assets never change under their name: cached for a year (the app's hook said no-store).
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/ui/assets/')) {
      if (reply.statusCode === 200) reply.header('cache-control', 'public, max-age=31536000, immutable');
    } else if (/^\/ui\/digests\/[^/]+\/preview\.html$/.test(request.url.split('?')[0] ?? '')) {
      // A digest's mail, framed by its page: inline styles apply, nothing runs or loads.
      reply.header('content-security-policy', PREVIEW_POLICY);
      reply.header('x-frame-options', 'SAMEORIGIN');
    } else {
      reply.header('content-security-policy', csp);
    }
    return payload;
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const perchError = toPerchError(error, store.caps);
    if (perchError.code === 'internal') request.log.error({ err: error }, 'dashboard request failed');
    return errorPage(request, reply, perchError);
  });

  // Browsers asking for / are sent to the dashboard; other clients learn where things are.
  app.get('/', { config: { access: 'public', ui: 'public' } }, async (request, reply) => {
    if ((request.headers.accept ?? '').includes('text/html')) return reply.redirect('/ui/', 303);
    throw new PerchError('not_found', 'The API is under /api/ (reference at /api/docs); the dashboard is at /ui/.');
  });

  // Every page, with what it uses.
  registerAssets(app);
  registerSignIn(app, services.sessions);
  registerOverview(app, { store, clock, config, tracker, accounts });
  registerAccountsPage(app, accounts);
  registerAccountPage(app, { accounts, followers: services.followers, remoteImages: config.uiRemoteImages });
  registerFollowerListSwitch(app, { followers: services.followers });
  registerAccountActions(app, { accounts, tracker });
  registerComparePage(app, accounts);
  // In a scope of its own: it alone reads multipart and CSV bodies.
  await app.register(registerImportPage, { imports: services.imports, tracker });
  registerKeysPage(app, services.keys);
  registerWebhooksPage(app, services.webhooks);
  registerWebhookPage(app, services.webhooks);
  registerAlertsPages(app, services.alerts);
  registerDigestsPage(app, services.digests);
  registerDigestPage(app, services.digests);
  registerMailLogPage(app, services.digests);
  registerEventsPage(app, store);
}
