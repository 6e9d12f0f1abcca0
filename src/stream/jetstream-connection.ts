// One Jetstream subscription kept open on a maintained WebSocket client (`ws`): opened with
// `requireHello=true` and the collections in the URL, the DIDs sent in an options_update (never in
// the URL: a shard's list is long), resumed from where its owner says, frames parsed and handed
// over in batches, in order, one batch at a time. Reusable by any stream: it knows collections, an
// optional DID list and a frame handler, nothing of accounts. It runs on src/loop.ts: a round is
// one session, the wait between rounds is the reconnect backoff.
//
// States:
//   IDLE        built, not started.
//   CONNECTING  the WebSocket is being opened (resuming from the owner's cursor minus the rewind).
//   OPEN        subscribed: frames arrive and are applied in batches; setDids() re-sends the options.
//   WAITING     the session ended (closed, cut, refused, or its handler threw); backing off with full
//               jitter (250 ms → 30 s) before the next session, on the next URL after a failure.
//   STOPPED     stop() was called: the socket is closed and the batch being applied finishes.
import type { Logger } from 'pino';
import { setImmediate as yieldToIo } from 'node:timers/promises';
import WebSocket from 'ws';
import type { SleepingClock } from '../clock.ts';
import { reconnectDelayMs } from '../domain/stream-shards.ts';
import { every } from '../every.ts';
import { PollingLoop } from '../loop.ts';
import { parseFrame, type StreamFrame } from './frames.ts';

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'waiting' | 'stopped';

export interface ConnectionHooks {
  /** The subscription is open; `resumeUs` is the cursor it asked for (null: live only). */
  opened?(url: string, resumeUs: number | null): void;
  /** The session ended; `healthy` says whether it was up long enough to reset the backoff. */
  closed?(url: string, healthy: boolean): void;
  /** A frame was refused (it is skipped). */
  malformed?(reason: string): void;
  /**
   * The resume came back later than asked: the session resumed from the frame this connection
   * applied last (`resumeUs`), yet the server's first frame is newer (`firstUs`), so it did not
   * replay that frame (nor the rewind before it): it no longer keeps them and clamped the cursor
   * silently. Awaited before the session's first batch is applied.
   */
  resumedLate?(resumeUs: number, firstUs: number): Promise<void>;
}

export interface JetstreamConnectionOptions {
  /** For the logs, e.g. `posts/2`. */
  name: string;
  /** The subscribe URL and its fallbacks, tried in turn after failures. */
  urls: readonly string[];
  collections: readonly string[];
  /** The DIDs to follow; null: every DID (a collection-wide stream). */
  dids: readonly string[] | null;
  /** The last applied time_us, or null to start live. */
  resumeFrom(): Promise<number | null>;
  /** How far before the cursor a session resumes (µs): replayed frames are idempotent. */
  rewindUs: number;
  /** Applies a batch of frames, in order; throws to end the session (the frames come again). */
  onFrames(frames: StreamFrame[]): Promise<void>;
  hooks?: ConnectionHooks;
  clock: SleepingClock;
  logger: Logger;
  random?: () => number;
  /** Most frames handed over in one batch. */
  batchMax?: number;
  /** How often an open socket is pinged; no pong by the next ping ends the session. */
  pingMs?: number;
}

/** A session this long (or one that brought frames) resets the backoff. */
const HEALTHY_SESSION_MS = 10_000;
/** Frames waiting beyond this pause the socket (TCP then holds the server back) until half are applied. */
const HIGH_WATER = 20_000;

export class JetstreamConnection {
  private current: ConnectionState = 'idle';
  private readonly loop: PollingLoop;
  private dids: readonly string[] | null;
  private ws: WebSocket | null = null;
  private urlIndex = 0;
  private failures = 0;
  private lastHealthy = true;
  private sessions = 0;
  private stopping = false;
  /** The newest time_us handed over and applied. */
  lastTimeUs: number | null = null;
  connectedAt: number | null = null;

  constructor(private readonly options: JetstreamConnectionOptions) {
    this.dids = options.dids;
    this.loop = new PollingLoop(
      {
        round: () => this.session(),
        waitMs: async () => this.nextDelay(),
        onError: (error) => options.logger.warn({ err: error, stream: options.name }, 'stream session failed'),
      },
      options.clock,
      { errorWaitMs: 1_000 },
    );
  }

  get state(): ConnectionState {
    return this.current;
  }

  /** Sessions after the first: how often this connection had to come back. */
  get reconnects(): number {
    return Math.max(0, this.sessions - 1);
  }

  get url(): string {
    return this.options.urls[this.urlIndex % this.options.urls.length]!;
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.ws?.terminate();
    await this.loop.stop();
    this.current = 'stopped';
  }

  /** Changes the DIDs followed: an open subscription gets the new options_update at once, nothing reconnects. */
  setDids(dids: readonly string[]): void {
    this.dids = dids;
    if (this.ws?.readyState === WebSocket.OPEN) this.sendOptions(this.ws);
  }

  private nextDelay(): number {
    if (this.stopping) return 0;
    this.current = 'waiting';
    if (this.lastHealthy) this.failures = 0;
    else {
      this.failures += 1;
      this.urlIndex += 1;
    }
    return reconnectDelayMs(this.failures, this.options.random ?? Math.random);
  }

  private sendOptions(ws: WebSocket): void {
    const payload = {
      wantedCollections: this.options.collections,
      wantedDids: this.dids ?? [],
      maxMessageSizeBytes: 0,
    };
    ws.send(JSON.stringify({ type: 'options_update', payload }));
  }

  private subscribeUrl(resumeUs: number | null): string {
    const url = new URL(this.url);
    for (const collection of this.options.collections) url.searchParams.append('wantedCollections', collection);
    url.searchParams.set('requireHello', 'true');
    if (resumeUs !== null) url.searchParams.set('cursor', String(Math.max(0, resumeUs - this.options.rewindUs)));
    return url.toString();
  }

  /** One session: open, apply frames until the socket ends, then let the loop back off. */
  private async session(): Promise<void> {
    if (this.stopping) return;
    const { logger, name, hooks } = this.options;
    this.current = 'connecting';
    this.lastHealthy = false;
    const resumeUs = await this.options.resumeFrom();
    // Only a cursor that is a frame this process applied is sure to come back in the replay (the
    // first cursor of a shard is the moment it subscribed, and another owner may have moved it).
    let checkResume = resumeUs !== null && resumeUs === this.lastTimeUs && this.options.rewindUs > 0;
    const url = this.url;
    const ws = new WebSocket(this.subscribeUrl(resumeUs), { handshakeTimeout: 10_000, maxPayload: 8 * 1024 * 1024 });
    this.ws = ws;
    this.sessions += 1;
    const startedAt = this.options.clock.now();
    const queue: string[] = [];
    let draining: Promise<void> | null = null;
    let abandoned = false;
    let paused = false;
    let gotFrames = false;
    const drain = async () => {
      const batchMax = this.options.batchMax ?? 500;
      while (queue.length > 0 && !abandoned && !this.stopping) {
        // The socket's data already waiting comes in first (one read per turn of the event loop,
        // ~200 frames), so a burst is applied in full batches, not one read's worth at a time.
        for (let seen = queue.length; seen < batchMax; seen = queue.length) {
          await yieldToIo();
          if (queue.length === seen) break;
        }
        const frames: StreamFrame[] = [];
        for (const raw of queue.splice(0, batchMax)) {
          const frame = parseFrame(raw);
          if ('error' in frame) {
            logger.warn({ stream: name, reason: frame.error, frame: raw.slice(0, 200) }, 'malformed frame skipped');
            hooks?.malformed?.(frame.error);
          } else frames.push(frame);
        }
        try {
          const first = frames[0]?.timeUs;
          if (checkResume && first !== undefined) {
            checkResume = false;
            if (first > resumeUs!) await hooks?.resumedLate?.(resumeUs!, first);
          }
          if (frames.length > 0) await this.options.onFrames(frames);
          const last = frames.at(-1)?.timeUs;
          if (last !== undefined) this.lastTimeUs = Math.max(this.lastTimeUs ?? 0, last);
        } catch (error) {
          // Nothing of the batch was kept: the next session replays it from the stored cursor.
          logger.warn({ err: error, stream: name }, 'frames could not be applied; reconnecting from the cursor');
          abandoned = true;
          ws.terminate();
        }
        if (paused && queue.length < HIGH_WATER / 2) {
          paused = false;
          ws.resume();
        }
      }
      draining = null;
    };
    let pong = true;
    const pinger = every(this.options.pingMs ?? 20_000, async () => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (!pong) return ws.terminate();
      pong = false;
      ws.ping();
    });
    ws.on('pong', () => (pong = true));
    ws.on('open', () => {
      this.current = 'open';
      this.connectedAt = this.options.clock.now();
      this.sendOptions(ws);
      hooks?.opened?.(url, resumeUs);
    });
    ws.on('message', (data) => {
      gotFrames = true;
      queue.push(String(data));
      if (!paused && queue.length > HIGH_WATER) {
        paused = true;
        ws.pause();
      }
      draining ??= drain();
    });
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.on('error', (error) => logger.info({ stream: name, url, reason: error.message }, 'stream connection failed'));
    });
    await pinger.stop();
    await draining;
    this.ws = null;
    this.connectedAt = null;
    this.lastHealthy = !abandoned && (gotFrames || this.options.clock.now() - startedAt >= HEALTHY_SESSION_MS);
    hooks?.closed?.(url, this.lastHealthy);
  }
}
