// The one way a webhook leaves perch: a POST to an http(s) URL whose address is checked when the
// connection is made (a DNS answer checked earlier may have changed since), never following
// redirects, within a time limit, reading at most 64 KiB of the answer.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { hostOf, isPrivateAddress } from './address-guard.ts';

export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface OutboundOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface OutboundResult {
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  /** Why no 2xx, in words safe to show an admin (no secrets: they are only in headers we send). */
  error: string | null;
  durationMs: number;
}

export class RefusedAddressError extends Error {
  constructor(host: string) {
    super(
      `${host} resolves to a private, loopback, link-local or multicast address (set WEBHOOK_ALLOW_PRIVATE=true to allow it)`,
    );
    this.name = 'RefusedAddressError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A DNS lookup that refuses private answers: handed to the socket, so it runs at connect time. */
function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address)))
        return callback(new RefusedAddressError(hostname), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

// Connections are kept for the next delivery to the same endpoint: its address was checked when
// the connection was made, and a busy endpoint is spared a TCP (and TLS) handshake per event.
const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 64, timeout: 30_000 }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: 64, timeout: 30_000 }),
};

/** POSTs `body`; resolves with the outcome, never rejects. */
export function postJson(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: OutboundOptions,
): Promise<OutboundResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): OutboundResult => ({
    status,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  const host = hostOf(url);
  // A literal address never goes through lookup: check it here.
  if (isIP(host) !== 0 && !options.allowPrivate && isPrivateAddress(host))
    return Promise.resolve(done(null, new RefusedAddressError(host).message));
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'perch-webhooks',
      },
      lookup: guardedLookup(options.allowPrivate) as never,
      signal: AbortSignal.timeout(options.timeoutMs),
      agent: url.protocol === 'https:' ? agents.https : agents.http,
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // Enough of the answer: the status is what counts, the rest is not waited for.
        if (read >= MAX_RESPONSE_BYTES) {
          res.destroy();
          resolve(done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`));
        }
      });
      res.on('end', () => {
        if (status >= 200 && status < 300) resolve(done(status, null));
        else if (status >= 300 && status < 400) resolve(done(status, `HTTP ${status}: redirects are not followed`));
        else resolve(done(status, `HTTP ${status}`));
      });
      // Cut off (timeout, reset) after the status line: the status decides.
      const cut = () => resolve(done(status, status >= 200 && status < 300 ? null : `HTTP ${status}`));
      res.on('error', cut);
      res.on('close', cut);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? `no answer within ${options.timeoutMs / 1000} s`
          : error instanceof RefusedAddressError
            ? error.message
            : `${error.code ?? 'network error'}: ${error.message}`;
      resolve(done(null, reason.slice(0, 300)));
    });
    req.end(body);
  });
}
