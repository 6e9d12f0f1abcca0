// One HTTP GET as every platform client needs it: a timeout, a cap on the body's size, JSON out.
// Transport failures become PlatformError('unavailable'); what the status means is the caller's call.
// Node's own http(s) client, on its keep-alive global agents: `fetch` cost twice its CPU per request
// (a WHATWG Request, Headers and body stream each), a fifth of a first check's (bench/README.md).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { PlatformError, type RateLimitInfo, type RequestPacer } from './types.ts';

export interface HttpOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
}

/** A response's headers, read by name in any case (a WHATWG `Headers` is one too). */
export interface ResponseHeaders {
  get(name: string): string | null;
}

export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  /** The parsed body, or undefined when it was empty or not JSON. */
  json: unknown;
  /** True when a non-empty body could not be parsed as JSON. */
  invalidJson: boolean;
}

/** GETs `url`; rejects with PlatformError on network errors, timeouts and bodies over `maxBytes`. */
export async function getJson(url: string, options: HttpOptions): Promise<HttpResponse> {
  // One controller per request, linked to the caller's signal by a listener removed afterwards:
  // AbortSignal.any() would leave an entry on the caller's long-lived signal per request (Node 20).
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('request timed out', 'TimeoutError')),
    options.timeoutMs,
  );
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await fetchJson(url, options, controller.signal);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function send(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(target, { method: 'GET', headers, signal }, resolve);
    outgoing.once('error', reject);
    outgoing.end();
  });
}

function headersOf(response: IncomingMessage): ResponseHeaders {
  return {
    get(name) {
      const value = response.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

async function fetchJson(url: string, options: HttpOptions, signal: AbortSignal): Promise<HttpResponse> {
  let response: IncomingMessage;
  try {
    response = await send(url, { accept: 'application/json', ...options.headers }, signal);
  } catch (error) {
    throw transportError(error, options.signal);
  }
  const status = response.statusCode ?? 0;
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    response.destroy();
    throw new PlatformError('bad_response', `response of ${declared} bytes is over the ${options.maxBytes}-byte cap`, {
      status,
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > options.maxBytes) {
        response.destroy();
        throw new PlatformError('bad_response', `response body is over the ${options.maxBytes}-byte cap`, { status });
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw transportError(error, options.signal);
  }
  const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
  let json: unknown;
  let invalidJson = false;
  if (text.trim() !== '') {
    try {
      json = JSON.parse(text);
    } catch {
      invalidJson = true;
    }
  }
  return { status, headers: headersOf(response), json, invalidJson };
}

/** What one response says about its rate-limit window, and for a 429 when to try again (epoch ms). */
export interface WindowNews {
  rateLimit: RateLimitInfo | null;
  retryAt: number | null;
}

/**
 * getJson behind the caller's pacer: asks it before the request and tells it after (with nothing
 * learnt when the transport failed), so each request of a call passes the rate gate on its own.
 * Without a pacer it is getJson.
 */
export async function pacedGetJson(
  url: string,
  options: HttpOptions,
  pacer: RequestPacer | undefined,
  readWindow: (response: HttpResponse) => WindowNews,
): Promise<HttpResponse> {
  if (pacer === undefined) return getJson(url, options);
  if (!(await pacer.before()))
    throw new PlatformError('rate_limited', 'no room left in the rate-limit window for this request');
  let response: HttpResponse;
  try {
    response = await getJson(url, options);
  } catch (error) {
    await pacer.after(null, null);
    throw error;
  }
  const news = readWindow(response);
  await pacer.after(news.rateLimit, news.retryAt);
  return response;
}

function transportError(error: unknown, callerSignal: AbortSignal | undefined): PlatformError | unknown {
  // The caller's own abort (shutdown) is not the platform's fault: let it through unchanged.
  if (callerSignal?.aborted) return callerSignal.reason ?? error;
  const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
  return new PlatformError('unavailable', timedOut ? 'request timed out' : 'network error', { cause: error });
}

/** `Retry-After` as epoch ms: delta seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return now + Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : date;
}

/** Reads an integer header; null when absent or not a number. */
export function intHeader(headers: ResponseHeaders, name: string): number | null {
  const raw = headers.get(name);
  if (raw === null || !/^\s*\d+\s*$/.test(raw)) return null;
  return Number(raw);
}
