// buildApp(deps): the HTTP application, every plugin and route listed in order. It never listens.
import { randomBytes } from 'node:crypto';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { AccessLog } from './http/access-log.ts';
import { lazyRequestLogger } from './http/lazy-request-log.ts';
import { registerAuth } from './http/auth.ts';
import type { AppDeps } from './app-deps.ts';
import { buildClientErrorHandler, handleFrameworkError } from './http/early-errors.ts';
import { buildErrorHandler, callerRequestId } from './http/errors.ts';
import { registerExpectContinue } from './http/expect-continue.ts';
import { MAX_PARAM_LENGTH, registerRouteTable } from './http/route-table.ts';
import { registerValidation } from './http/validation.ts';
import { untrustedForwardingWarning } from './limits/client-address.ts';
import { sharedRequestCounter } from './limits/request-counter.ts';
import { registerRequestLimit } from './http/request-limit.ts';
import { AccountSchema, ProblemSchema } from './http/schemas.ts';
import {
  registerIdentityEncodingOnly,
  registerSecurityHeaders,
  registerShutdownGate,
} from './http/security-headers.ts';
import accountFollowerRoutes from './http/routes/account-followers.ts';
import accountHistoryRoutes from './http/routes/account-history.ts';
import accountPostsRoutes from './http/routes/account-posts.ts';
import accountRoutes from './http/routes/accounts.ts';
import adminAccountRoutes from './http/routes/admin-accounts.ts';
import apiKeyRoutes from './http/routes/api-keys.ts';
import docsRoutes from './http/routes/docs.ts';
import eventStreamRoutes from './http/routes/event-stream.ts';
import eventRoutes from './http/routes/events.ts';
import healthRoutes from './http/routes/health.ts';
import importRoutes from './http/routes/imports.ts';
import insertRoutes from './http/routes/insert.ts';
import meRoutes from './http/routes/me.ts';
import metricsRoutes from './http/routes/metrics.ts';
import usageRoutes from './http/routes/usage.ts';
import webhookRoutes from './http/routes/webhooks.ts';
import alertRoutes from './http/routes/alerts.ts';
import digestRoutes from './http/routes/digests.ts';
import uiRoutes from './ui/routes.ts';

let requestCounter = 0;
const PROCESS_TAG = randomBytes(3).toString('hex');

export async function buildApp(deps: AppDeps, logger: FastifyBaseLogger): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: logger,
    // One access line per request, when it is answered (http/access-log.ts).
    logController: new AccessLog(logger),
    // request.log is made when the request logs something besides that line (lazy-request-log.ts).
    childLoggerFactory: lazyRequestLogger,
    // Our own id, unique per process run, so no caller can make two requests look like one; the
    // caller's X-Request-Id is kept beside it (callerRequestId in logs and problem documents).
    genReqId: () => `req-${PROCESS_TAG}-${(++requestCounter).toString(36)}`,
    requestTimeout: config.requestTimeoutMs,
    bodyLimit: 1_048_576,
    // Fastify reads a number as a count of hops; its types only lack the case.
    trustProxy: config.trustProxy as boolean | string,
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors met before routing, and those of Node's parser, are problem documents too.
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: buildClientErrorHandler(logger),
  });

  // Hooks that never wait are written with `done` rather than async: every request passes them,
  // and an async hook costs a promise and a turn of the microtask queue each.
  app.addHook('onRequest', (request, _reply, done) => {
    const caller = callerRequestId(request);
    if (caller !== null) request.log = request.log.child({ callerRequestId: caller });
    done();
  });
  registerRouteTable(app);
  if (config.trustProxy === false) {
    const warnForwarded = untrustedForwardingWarning(logger);
    app.addHook('onRequest', (request, _reply, done) => {
      warnForwarded(request.headers['x-forwarded-for']);
      done();
    });
  }
  registerValidation(app);
  app.setErrorHandler(buildErrorHandler(deps.store.caps));
  registerShutdownGate(app);
  registerSecurityHeaders(app);
  registerAuth(app, deps.services.auth);
  registerIdentityEncodingOnly(app);
  registerExpectContinue(app);
  // Fastify reads text/plain bodies by default; every route but the insert (which takes CSV as
  // text) speaks JSON only, so text/plain is a 415 like any other type.
  app.removeContentTypeParser('text/plain');
  // Counted in the store, shared by every process; a count that fails lets the request through
  // (limits/request-counter.ts says why).
  registerRequestLimit(app, {
    max: config.rateLimitPerMinute,
    windowMs: 60_000,
    counter: sharedRequestCounter({ db: deps.store.db, clock: deps.clock, log: logger }),
  });

  app.addSchema(ProblemSchema);
  app.addSchema(AccountSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'perch',
        version: deps.version,
        description:
          'Account-tracking service: register X and Bluesky accounts from CSV, then read their details. Every error is an RFC 9457 problem document with a stable `code`.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      tags: [
        { name: 'accounts', description: 'Register and read tracked accounts' },
        { name: 'keys', description: 'API keys and roles' },
        { name: 'health', description: 'Readiness and liveness' },
        { name: 'events', description: 'What changed, by polling or as a stream' },
        { name: 'webhooks', description: 'Endpoints that receive events, signed (Standard Webhooks)' },
        { name: 'alerts', description: 'Alert rules: what a person asked to hear about (DESIGN §12)' },
        { name: 'digests', description: 'Summaries mailed daily or weekly, and the mail delivery log' },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  // Each route file gets what it uses, and nothing else.
  const { services, store, clock, tracker } = deps;
  const { accounts } = services;
  await app.register(healthRoutes, { store, clock, config, tracker, role: deps.role, version: deps.version });
  // With METRICS_PORT, /metrics is served on that port only (http/metrics-server.ts).
  if (config.metricsPort === null)
    await app.register(metricsRoutes, { registry: deps.metrics, metricsKey: config.metricsKey });
  // A worker serves health and metrics only: probes and scrapers reach it, callers of the API do not.
  if (deps.role === 'worker') return app;
  await app.register(docsRoutes);
  await app.register(meRoutes);
  await app.register(accountRoutes, { accounts });
  await app.register(accountHistoryRoutes, { accounts, historyBucketMs: config.historyBucketMs });
  await app.register(accountPostsRoutes, { accounts });
  await app.register(accountFollowerRoutes, { followers: services.followers });
  await app.register(insertRoutes, { imports: services.imports, tracker });
  await app.register(adminAccountRoutes, { accounts, followers: services.followers, tracker });
  await app.register(importRoutes, { store });
  await app.register(usageRoutes, { store, clock, config });
  await app.register(apiKeyRoutes, { keys: services.keys, keyCacheTtlMs: config.keyCacheTtlMs });
  await app.register(eventRoutes, { store });
  await app.register(eventStreamRoutes, {
    store,
    limits: { perKey: config.eventStreamsPerKey, max: config.eventStreamsMax },
    authenticator: deps.authenticator,
    keyCacheTtlMs: config.keyCacheTtlMs,
  });
  await app.register(webhookRoutes, { webhooks: services.webhooks });
  await app.register(alertRoutes, { alerts: services.alerts });
  await app.register(digestRoutes, { digests: services.digests });
  // The dashboard: server-rendered pages calling the same services (src/ui/README.md).
  await app.register(uiRoutes, { config, services, store, clock, tracker });
  return app;
}
