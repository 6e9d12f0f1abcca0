// Hooks that only some routes need, attached to those routes alone (a route-level hook), so that the
// others, the hottest reads among them, do not pass through them at all.
import type { FastifyInstance, RouteOptions } from 'fastify';

/** Methods whose request body Fastify reads: every one but GET and HEAD. */
export function takesBody(route: Pick<RouteOptions, 'method'>): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.some((method) => method !== 'GET' && method !== 'HEAD');
}

type HookName = 'onRequest' | 'preParsing';

/** Adds `hook` as the last `name` hook of every route registered from now on for which `wanted` holds. */
export function addHookToRoutes<H>(
  app: FastifyInstance,
  name: HookName,
  wanted: (route: RouteOptions) => boolean,
  hook: H,
): void {
  app.addHook('onRoute', (route) => {
    if (!wanted(route)) return;
    const slot = route as unknown as Record<HookName, unknown>;
    const existing = slot[name];
    slot[name] = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
}
