// Keeps the table of registered routes: refuses a route that declares no access role, answers
// 405 with `Allow` for a known path and a wrong method, and marks secured routes in OpenAPI.
import type { FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { PerchError } from '../domain/errors.ts';
import type { RouteAccess } from '../domain/roles.ts';
import { sendProblem } from './errors.ts';
import type {} from '@fastify/swagger'; // adds `security` to route schemas

export const MAX_PARAM_LENGTH = 500;

export interface RegisteredRoute {
  method: string;
  url: string;
  /** Read when asked: a plugin's own onRoute hook (docs) may set it after this table saw the route. */
  readonly access: RouteAccess | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RegisteredRoute[];
  }
}

export function registerRouteTable(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  // Same matching options as the app's router, so 405 is answered wherever a route would match.
  const router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH });
  app.decorate('routeTable', routes);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    for (const method of methods) {
      routes.push({
        method,
        url: route.url,
        get access() {
          return route.config?.access;
        },
      });
      router.on(method as HTTPMethod, route.url, () => {});
    }
    if (access !== undefined && access !== 'public' && route.schema) {
      route.schema = { ...route.schema, security: [{ apiKey: [] }] };
    }
  });

  // A route that declares no access would be a hole: refuse to start (auth.ts also treats it as admin).
  app.addHook('onReady', async () => {
    const undeclared = routes.filter((r) => r.access === undefined).map((r) => `${r.method} ${r.url}`);
    if (undeclared.length > 0) throw new Error(`routes without a declared access role: ${undeclared.join(', ')}`);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [
      ...new Set(routes.filter((r) => router.find(r.method as HTTPMethod, path) !== null).map((r) => r.method)),
    ];
    // A route of this very method that still said "not found" (a missing static file) is a 404.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      return sendProblem(
        reply,
        new PerchError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(', ')}.`),
        { allow: allowed.join(', ') },
      );
    }
    return sendProblem(reply, new PerchError('not_found', `There is no route ${request.method} ${path}.`));
  });
}
