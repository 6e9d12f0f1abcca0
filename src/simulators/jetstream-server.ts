// A local Jetstream over a real WebSocket (`ws`): the frames of github.com/bluesky-social/jetstream,
// `time_us` cursors replayed from a buffer (a cursor older than the buffer keeps is clamped to its
// oldest event, silently, as the real server does), `requireHello=true` (nothing is sent before an
// options_update), options_update changing the filter mid-stream, and connections dropped or
// refused on demand. Tests and the demo publish through it (jetstream-world.ts links a BlueskyWorld).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { realClock, type FakeClock } from './fake-kit.ts';
import {
  collectionWanted,
  filterFromOptions,
  passes,
  type JetstreamCommit,
  type JetstreamEvent,
  type JetstreamFilter,
} from './jetstream-frames.ts';

export type { JetstreamEvent } from './jetstream-frames.ts';

/** One subscription as the server saw it, for tests to read. */
export interface JetstreamConnectionLog {
  id: number;
  openedAt: number;
  closedAt: number | null;
  /** The query's cursor, as asked, and where replay really began (later when clamped). */
  cursor: number | null;
  replayFrom: number | null;
  requireHello: boolean;
  /** The collections the URL asked for. */
  collections: string[];
  /** options_update messages received, and the DIDs the last one asked for. */
  optionsUpdates: number;
  wantedDids: number;
}

interface Subscriber {
  ws: WebSocket;
  log: JetstreamConnectionLog;
  filter: JetstreamFilter;
  ready: boolean;
}

export interface FakeJetstreamOptions {
  clock?: FakeClock;
  /** How long events are kept for replay (the real servers keep about 36 h). */
  retentionMs?: number;
}

const HOUR_MS = 3_600_000;
export class FakeJetstream {
  /** The subscribe URL, e.g. ws://127.0.0.1:41234/subscribe. */
  url = '';
  /** Every event kept for replay, oldest first. */
  readonly events: JetstreamEvent[] = [];
  readonly connections: JetstreamConnectionLog[] = [];
  retentionMs: number;
  /** While true, new connections are refused (the upgrade answers 503) and none stays open. */
  private refusing = false;
  private readonly subscribers = new Set<Subscriber>();
  private readonly clock: FakeClock;
  private lastUs = 0;
  private seq = 0;
  private http: Server | null = null;
  private wss: WebSocketServer | null = null;

  constructor(options: FakeJetstreamOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.retentionMs = options.retentionMs ?? 36 * HOUR_MS;
  }

  async start(): Promise<this> {
    const wss = new WebSocketServer({ noServer: true });
    const http = createServer((_req, res) => res.writeHead(426, { 'content-type': 'text/plain' }).end('upgrade'));
    http.on('upgrade', (req, socket, head) => {
      const path = new URL(req.url ?? '/', 'http://fake.invalid').pathname;
      if (this.refusing || path !== '/subscribe') {
        socket.end(`HTTP/1.1 ${this.refusing ? '503 Service Unavailable' : '404 Not Found'}\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => this.subscribe(ws, req));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    this.http = http;
    this.wss = wss;
    this.url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/subscribe`;
    return this;
  }

  async close(): Promise<void> {
    this.dropAll();
    this.wss?.close();
    await new Promise<void>((resolve) => (this.http ? this.http.close(() => resolve()) : resolve()));
  }

  /** Open subscriptions that have their filter (past the hello, when one was required). */
  get openConnections(): number {
    return [...this.subscribers].filter((s) => s.ready).length;
  }

  /** Open, ready subscriptions that asked for `collection` by name (the posts shards, say). */
  openConnectionsFor(collection: string): number {
    return [...this.subscribers].filter((s) => s.ready && s.filter.collections.includes(collection)).length;
  }

  /** Whether an open, ready subscription would be sent this DID's commits of `collection` (posts by default). */
  wants(did: string, collection = 'app.bsky.feed.post'): boolean {
    return [...this.subscribers].some(
      (s) =>
        s.ready &&
        (s.filter.dids.size === 0 || s.filter.dids.has(did)) &&
        collectionWanted(s.filter.collections, collection),
    );
  }

  /** Cuts every open connection at once (the socket is destroyed, no close frame). */
  dropAll(): void {
    for (const subscriber of this.subscribers) subscriber.ws.terminate();
  }

  /** Goes down: open connections are cut and new ones refused until up(). */
  down(): void {
    this.refusing = true;
    this.dropAll();
  }

  up(): void {
    this.refusing = false;
  }

  /** Forgets every event older than `timeUs`, as if the retention had passed over them. */
  forgetBefore(timeUs: number): void {
    const keep = this.events.findIndex((e) => e.time_us >= timeUs);
    this.events.splice(0, keep < 0 ? this.events.length : keep);
  }

  commit(did: string, commit: Omit<JetstreamCommit, 'rev'>): JetstreamEvent {
    return this.publish({ did, kind: 'commit', commit: { rev: this.nextRev(), ...commit } });
  }

  /** An identity event; the real ones may carry no handle, or `handle.invalid`. */
  identity(did: string, handle?: string): JetstreamEvent {
    const identity = { did, seq: (this.seq += 1), time: new Date(this.clock.now()).toISOString() };
    return this.publish({ did, kind: 'identity', identity: handle === undefined ? identity : { ...identity, handle } });
  }

  /** An account event: `active: false` with `takendown`, `suspended`, `deactivated` or `deleted`. */
  account(did: string, active: boolean, status?: string): JetstreamEvent {
    const account = { active, did, seq: (this.seq += 1), time: new Date(this.clock.now()).toISOString() };
    return this.publish({ did, kind: 'account', account: status === undefined ? account : { ...account, status } });
  }

  /** Sends a text frame as it is to every ready subscriber (malformed frames, for tests). */
  raw(text: string): void {
    for (const subscriber of this.subscribers) if (subscriber.ready) subscriber.ws.send(text);
  }

  private publish(event: DistributiveOmit<JetstreamEvent, 'time_us'>): JetstreamEvent {
    this.lastUs = Math.max(this.clock.now() * 1000, this.lastUs + 1);
    const stamped = { ...event, time_us: this.lastUs } as JetstreamEvent;
    this.events.push(stamped);
    this.forgetBefore((this.clock.now() - this.retentionMs) * 1000);
    const text = JSON.stringify(stamped);
    for (const subscriber of this.subscribers)
      if (subscriber.ready && passes(subscriber.filter, stamped)) subscriber.ws.send(text);
    return stamped;
  }

  private subscribe(ws: WebSocket, req: IncomingMessage): void {
    const query = new URL(req.url ?? '/', 'http://fake.invalid').searchParams;
    const rawCursor = query.get('cursor');
    const cursor = rawCursor !== null && /^\d+$/.test(rawCursor) ? Number(rawCursor) : null;
    const log: JetstreamConnectionLog = {
      id: this.connections.length + 1,
      openedAt: this.clock.now(),
      closedAt: null,
      cursor,
      replayFrom: null,
      requireHello: query.get('requireHello') === 'true',
      collections: query.getAll('wantedCollections'),
      optionsUpdates: 0,
      wantedDids: query.getAll('wantedDids').length,
    };
    this.connections.push(log);
    const subscriber: Subscriber = {
      ws,
      log,
      filter: { collections: query.getAll('wantedCollections'), dids: new Set(query.getAll('wantedDids')) },
      ready: false,
    };
    this.subscribers.add(subscriber);
    ws.on('close', () => {
      log.closedAt = this.clock.now();
      this.subscribers.delete(subscriber);
    });
    ws.on('error', () => ws.terminate());
    ws.on('message', (data) => this.onMessage(subscriber, String(data)));
    if (!log.requireHello) this.begin(subscriber);
  }

  private onMessage(subscriber: Subscriber, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return subscriber.ws.close(1003, 'invalid JSON');
    }
    const { type, payload } = (message ?? {}) as { type?: unknown; payload?: unknown };
    if (type !== 'options_update') return;
    const filter = filterFromOptions(payload);
    if (typeof filter === 'string') return subscriber.ws.close(1008, filter);
    subscriber.filter = filter;
    subscriber.log.optionsUpdates += 1;
    subscriber.log.wantedDids = filter.dids.size;
    if (!subscriber.ready) this.begin(subscriber);
  }

  /**
   * Replays every kept event at or after the cursor, then goes live, in one synchronous pass. A
   * cursor older than what is kept starts at the oldest kept event: the span between is lost, silently.
   */
  private begin(subscriber: Subscriber): void {
    subscriber.ready = true;
    const { cursor } = subscriber.log;
    if (cursor === null) return;
    subscriber.log.replayFrom = Math.max(cursor, this.events[0]?.time_us ?? cursor);
    for (const event of this.events)
      if (event.time_us >= cursor && passes(subscriber.filter, event)) subscriber.ws.send(JSON.stringify(event));
  }

  private nextRev(): string {
    return `3l${(this.seq += 1).toString(36).padStart(11, '2')}`;
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** Starts a local Jetstream on a random port. */
export async function startFakeJetstream(options: FakeJetstreamOptions = {}): Promise<FakeJetstream> {
  return new FakeJetstream(options).start();
}
