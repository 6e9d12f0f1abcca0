// One request to the X API v2 as every X call sends it: bearer auth, the shared GET with its
// timeout and size cap, the caller's pacer, `x-rate-limit-*` read, and what a non-2xx status means.
import { intHeader, pacedGetJson, parseRetryAfter, type HttpResponse, type WindowNews } from './http.ts';
import { PlatformError, type CallOptions, type RateLimitInfo } from './types.ts';
import { problemText, readRateLimit } from './x-wire.ts';

/** Where and how to reach X; one per client. */
export interface XConnection {
  baseUrl: string;
  /** App-only bearer token; null: every request fails as `unauthorized`. */
  token: string | null;
  timeoutMs: number;
  maxBytes: number;
  /** Epoch ms; turns a `Retry-After` delta into a time. */
  now: () => number;
}

/** When X answers 429 with neither a reset header nor Retry-After. */
const DEFAULT_RETRY_MS = 60_000;

/** A 429's retry time: X's reset header (epoch seconds), else Retry-After, else a minute. */
function retryAtOf(response: HttpResponse, now: number): number {
  const reset = intHeader(response.headers, 'x-rate-limit-reset');
  return reset !== null
    ? reset * 1000
    : (parseRetryAfter(response.headers.get('retry-after'), now) ?? now + DEFAULT_RETRY_MS);
}

function windowNews(connection: XConnection, response: HttpResponse): WindowNews {
  return {
    rateLimit: readRateLimit(response.headers),
    retryAt: response.status === 429 ? retryAtOf(response, connection.now()) : null,
  };
}

/** GETs `pathAndQuery` (past the caller's pacer); the status is the caller's to judge. */
export async function xGet(
  connection: XConnection,
  pathAndQuery: string,
  call: CallOptions,
): Promise<{ response: HttpResponse; rateLimit: RateLimitInfo | null }> {
  const { token } = connection;
  if (token === null) throw new PlatformError('unauthorized', 'no X bearer token is configured');
  const options = {
    headers: { authorization: `Bearer ${token}` },
    timeoutMs: connection.timeoutMs,
    maxBytes: connection.maxBytes,
    signal: call.signal,
  };
  const response = await pacedGetJson(connection.baseUrl + pathAndQuery, options, call.pacer, (r) =>
    windowNews(connection, r),
  );
  return { response, rateLimit: readRateLimit(response.headers) };
}

/** Throws the PlatformError a non-2xx status (or an unreadable 2xx body) stands for. */
export function failUnlessOk(connection: XConnection, response: HttpResponse, rateLimit: RateLimitInfo | null): void {
  const { status } = response;
  if (status >= 200 && status < 300) {
    if (response.invalidJson) throw new PlatformError('bad_response', 'X answered invalid JSON', { status, rateLimit });
    return;
  }
  const detail = problemText(response.json);
  const said = detail === null ? '' : `: ${detail}`;
  if (status === 429)
    throw new PlatformError('rate_limited', 'X rate limit reached', {
      status,
      retryAt: retryAtOf(response, connection.now()),
      rateLimit,
    });
  if (status === 401 || status === 403)
    throw new PlatformError('unauthorized', `X refused the credentials (${status})${said}`, { status, rateLimit });
  if (status >= 500) throw new PlatformError('unavailable', `X answered ${status}`, { status, rateLimit });
  if (status >= 400)
    throw new PlatformError('invalid_request', `X refused the request (${status})${said}`, { status, rateLimit });
  throw new PlatformError('bad_response', `X answered an unexpected status ${status}`, { status, rateLimit });
}

/**
 * A call that sends several requests has already been billed for the reads of the earlier ones
 * when a later one fails; the error carries them so the caller's read budget stays true.
 */
export function withReads(error: unknown, reads: number): unknown {
  if (!(error instanceof PlatformError) || reads === 0) return error;
  const { kind, message, status, retryAt, rateLimit, cause } = error;
  return new PlatformError(kind, message, { status, retryAt, rateLimit, cause, reads });
}
