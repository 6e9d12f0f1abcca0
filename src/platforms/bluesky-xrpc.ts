// One XRPC request to the Bluesky AppView as every Bluesky call sends it: the shared GET with its
// timeout and size cap, the caller's pacer, `ratelimit-*` read, and what a non-200 status means.
import { pacedGetJson, parseRetryAfter, type HttpResponse } from './http.ts';
import { readRateLimit, xrpcError } from './bluesky-wire.ts';
import { PlatformError, type CallOptions, type RateLimitInfo } from './types.ts';

/** Where and how to reach the AppView; one per client. */
export interface BlueskyConnection {
  /** The AppView, e.g. https://public.api.bsky.app (tests: the local simulator). */
  base: string;
  timeoutMs: number;
  maxBytes: number;
  now: () => number;
}

/** What the requests of one call learnt: the newest rate-limit figures and the records read. */
export interface Tally {
  rateLimit: RateLimitInfo | null;
  reads: number;
}

// xrpc-server's DID syntax (https://atproto.com/specs/did#at-protocol-did-identifier-syntax).
export const DID_SYNTAX = /^did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]$/;
/** When the AppView answers 429 with neither ratelimit-reset nor Retry-After. */
const DEFAULT_RETRY_MS = 60_000;

function retryAtOf(connection: BlueskyConnection, response: HttpResponse, rateLimit: RateLimitInfo | null): number {
  return (
    rateLimit?.resetAt ??
    parseRetryAfter(response.headers.get('retry-after'), connection.now()) ??
    connection.now() + DEFAULT_RETRY_MS
  );
}

/** GETs `/xrpc/<method>` (past the caller's pacer); the status is the caller's to judge. */
export async function xrpcGet(
  connection: BlueskyConnection,
  method: string,
  params: [string, string][],
  tally: Tally,
  call: CallOptions,
): Promise<HttpResponse> {
  const query = new URLSearchParams(params).toString();
  const options = { timeoutMs: connection.timeoutMs, maxBytes: connection.maxBytes, signal: call.signal };
  const response = await pacedGetJson(`${connection.base}/xrpc/${method}?${query}`, options, call.pacer, (r) => {
    const rateLimit = readRateLimit(r.headers, connection.now());
    return { rateLimit, retryAt: r.status === 429 ? retryAtOf(connection, r, rateLimit) : null };
  });
  // The newest figures win; a response without headers keeps what the previous one said.
  tally.rateLimit = readRateLimit(response.headers, connection.now()) ?? tally.rateLimit;
  return response;
}

/** Why a whole request failed, from a non-200 response. */
export function failure(connection: BlueskyConnection, response: HttpResponse, method: string): PlatformError {
  const { status } = response;
  const { error, message } = xrpcError(response.json);
  const detail = `${method}: ${status}${error ? ` ${error}` : ''}${message ? `: ${message}` : ''}`;
  const rateLimit = readRateLimit(response.headers, connection.now());
  if (status === 429)
    return new PlatformError('rate_limited', detail, {
      status,
      retryAt: retryAtOf(connection, response, rateLimit),
      rateLimit,
    });
  if (status >= 500) return new PlatformError('unavailable', detail, { status, rateLimit });
  if (status >= 400) return new PlatformError('invalid_request', detail, { status, rateLimit });
  return new PlatformError('bad_response', `${detail} (unexpected status)`, { status, rateLimit });
}

/** The JSON of a 200 answer; anything else is thrown as the PlatformError it means. */
export function body(connection: BlueskyConnection, response: HttpResponse, method: string): unknown {
  if (response.status !== 200) throw failure(connection, response, method);
  if (response.invalidJson) throw new PlatformError('bad_response', `${method}: invalid JSON`, { status: 200 });
  return response.json;
}
