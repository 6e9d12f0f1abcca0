// The per-key request limit (RATE_LIMIT_PER_MINUTE; a client before authentication is counted by
// its address): fixed windows aligned on the clock, counted in the store through blocks shared by
// every process (limits/request-blocks.ts). Every answer says where the caller stands
// (x-ratelimit-limit, -remaining, -reset); past the limit, 429 with Retry-After.
//
// A route-level hook on every route that does not opt out (`config.rateLimit: false`), after
// authentication, so that a key is counted as itself. While this process holds counts of the key's
// window, which is nearly always, the request is placed without a promise.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import { clientKey } from '../limits/client-address.ts';
import type { RequestCounter } from '../limits/request-counter.ts';
import type { Place } from '../limits/request-blocks.ts';
import { addHookToRoutes } from './route-hooks.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route is not counted against the caller's limit (health, metrics, docs, assets). */
    rateLimit?: false;
  }
}

export interface RequestLimitOptions {
  max: number;
  windowMs: number;
  counter: RequestCounter;
}

export function registerRequestLimit(app: FastifyInstance, { max, windowMs, counter }: RequestLimitOptions): void {
  const limit = String(max);
  /** Sets the caller's standing; the error to answer with past the limit, else null. */
  const standing = (reply: FastifyReply, { current, ttl }: Place): PerchError | null => {
    const reset = Math.ceil(ttl / 1000);
    reply.header('x-ratelimit-limit', limit);
    reply.header('x-ratelimit-remaining', String(Math.max(0, max - current)));
    reply.header('x-ratelimit-reset', String(reset));
    if (current <= max) return null;
    reply.header('retry-after', String(reset));
    return new PerchError('rate_limited', `Rate limit of ${max} requests per minute reached; retry in ${reset} s.`);
  };
  const hook: onRequestHookHandler = (request: FastifyRequest, reply, done) => {
    // Read at request time: a plugin's own onRoute hook (docs) may opt its routes out after this saw them.
    if (request.routeOptions.config.rateLimit === false) return done();
    const bucket = request.principal?.keyId ?? clientKey(request.ip);
    // A count that fails lets the request through (limits/request-counter.ts says why).
    const unavailable = (error: unknown) => {
      counter.warnUnavailable(error);
      done();
    };
    let placed: Place | Promise<Place>;
    try {
      placed = counter.place(bucket, windowMs, max);
    } catch (error) {
      unavailable(error);
      return;
    }
    if (!(placed instanceof Promise)) {
      done(standing(reply, placed) ?? undefined);
      return;
    }
    placed.then((place) => done(standing(reply, place) ?? undefined), unavailable);
  };
  addHookToRoutes(app, 'onRequest', () => true, hook);
}
