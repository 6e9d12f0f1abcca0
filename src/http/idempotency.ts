// Reads the Idempotency-Key header of a POST into what services/idempotency.ts needs to run the
// action once: the caller, the key, the route and a hash of the request.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import type { Once } from '../services/idempotency.ts';
import { principalOf } from './auth.ts';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function hashRequest(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

/** The request's idempotency identity, or null without the header; a malformed key is a 400. */
export function onceOf(request: FastifyRequest, requestHash: string): Once | null {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return null;
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw new PerchError('bad_request', 'Idempotency-Key must be 1-255 visible ASCII characters.');
  }
  return {
    owner: principalOf(request).keyId,
    key: header,
    route: `${request.method} ${request.routeOptions.url ?? ''}`,
    requestHash,
  };
}
