// What both local platform servers share: a real HTTP listener, an injectable clock, fixed-window
// rate limits per endpoint, scripted faults and a log of every request received.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeClock {
  now(): number;
}

export const realClock: FakeClock = { now: () => Date.now() };

/** One fixed window per endpoint: `limit` requests, then 429 until `resetAt`. */
export interface WindowState {
  limit: number;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

export class RateWindows {
  private readonly windows = new Map<string, WindowState>();
  private readonly limits = new Map<string, { limit: number; windowMs: number }>();
  /**
   * Real platforms announce a window on every response, so an endpoint without a limit of its
   * own still gets one, too large to reach (`null`: no window and no headers at all).
   */
  constructor(
    private readonly clock: FakeClock,
    private readonly unlimited: { limit: number; windowMs: number } | null = null,
  ) {}

  /** Sets the limit of one endpoint; `null` removes it (back to the unreachable default). Resets its window. */
  set(endpoint: string, limit: number | null, windowMs = 15 * 60_000): void {
    this.windows.delete(endpoint);
    if (limit === null) this.limits.delete(endpoint);
    else this.limits.set(endpoint, { limit, windowMs });
  }

  /** Counts one request; returns the window after it, or null when the endpoint is unlimited. `allowed` is false when over. */
  take(endpoint: string): { state: WindowState; allowed: boolean } | null {
    const rule = this.limits.get(endpoint) ?? this.unlimited;
    if (!rule) return null;
    const now = this.clock.now();
    let state = this.windows.get(endpoint);
    if (!state || now >= state.resetAt) {
      // Windows align to whole seconds, as platforms report resets in epoch seconds.
      const resetAt = Math.ceil((now + rule.windowMs) / 1000) * 1000;
      state = { limit: rule.limit, remaining: rule.limit, resetAt };
      this.windows.set(endpoint, state);
    }
    if (state.remaining <= 0) return { state: { ...state }, allowed: false };
    state.remaining -= 1;
    return { state: { ...state }, allowed: true };
  }
}

/** A scripted fault, applied to the next `times` requests whose path starts with `pathPrefix`. */
export type Fault =
  | { kind: 'status'; status: number; body?: string }
  | { kind: 'hang' }
  | { kind: 'invalid_json' }
  | { kind: 'oversized'; bytes: number }
  | { kind: 'reset' };

export class Faults {
  private readonly queue: { fault: Fault; remaining: number; pathPrefix: string }[] = [];
  inject(fault: Fault, times = 1, pathPrefix = '/'): void {
    this.queue.push({ fault, remaining: times, pathPrefix });
  }
  clear(): void {
    this.queue.length = 0;
  }
  /** The fault to apply to a request on `path`, if one is queued. */
  next(path: string): Fault | null {
    const entry = this.queue.find((e) => e.remaining > 0 && path.startsWith(e.pathPrefix));
    if (!entry) return null;
    entry.remaining -= 1;
    if (entry.remaining === 0) this.queue.splice(this.queue.indexOf(entry), 1);
    return entry.fault;
  }
}

export interface LoggedRequest {
  /** By the fake's clock. */
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  status: number | 'hang' | 'reset';
}

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/**
 * Applies a queued fault, if any; returns true when the request was answered (or left hanging).
 * Hanging sockets are tracked so close() can destroy them.
 */
export function applyFault(fault: Fault, res: ServerResponse, hanging: Set<ServerResponse>): LoggedRequest['status'] {
  switch (fault.kind) {
    case 'status':
      res.writeHead(fault.status, { 'content-type': 'application/json' }).end(fault.body ?? '');
      return fault.status;
    case 'hang':
      hanging.add(res);
      return 'hang';
    case 'invalid_json':
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [ {"id": "1", ');
      return 200;
    case 'oversized': {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"data":[],"padding":"${'x'.repeat(fault.bytes)}"}`);
      return 200;
    }
    case 'reset':
      res.socket?.destroy();
      return 'reset';
  }
}

/** Listens on 127.0.0.1 with a random port; close() also ends hanging requests and keep-alive sockets. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  hanging: Set<ServerResponse>,
): Promise<Listening & { server: Server }> {
  const server = createServer(handler);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const res of hanging) res.socket?.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}
