// Writes one event stream to its socket, paced by the reader: it waits for `drain` (raced with the
// stream's end), gives the event loop back every TURN_BYTES and between pages, lets go of a reader
// that stops reading, and ends the response after CATCH_UP_MAX events so that EventSource resumes
// with Last-Event-ID. Caught-up streams are served from the process's feed (services/event-feed.ts).
import type { ServerResponse } from 'node:http';
import { setImmediate } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { EventFeed, EventFilter } from '../services/event-feed.ts';
import { readEvents } from '../services/events.ts';
import type { Store } from '../services/context.ts';
import { encodeCursor } from './cursor.ts';

/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** How often a stream wakes up when nothing happens, to check its key and its keepalive. */
const IDLE_MS = 1_000;
const PAGE = 200;
/**
 * What one connection sends before it ends, so that catching up from an old cursor is a series of
 * bounded responses: EventSource reconnects by itself with Last-Event-ID and goes on from there.
 */
export const CATCH_UP_MAX = 10_000;
/** A reader whose socket has not drained for this long is let go (its unsent bytes stay bounded meanwhile). */
const STALL_MS = 30_000;
/** What a stream writes in one turn of the event loop before it lets other work run. */
const TURN_BYTES = 32 * 1_024;

export interface PumpInput {
  res: ServerResponse;
  store: Store;
  feed: EventFeed;
  filter: EventFilter;
  /** The position the stream starts after. */
  after: number;
  /** Aborted when the stream must end (the reader left, its lifetime or its key ended, the server closes). */
  stop: AbortSignal;
  /** False once the stream's key no longer works (revoked, expired). */
  keyStillValid: () => Promise<boolean>;
  /** How often the key is checked again (with the key cache's TTL, within DESIGN §3's 5 s). */
  recheckMs: number;
  log: FastifyBaseLogger;
}

type Ending = 'done' | 'stalled' | 'key';

/** Streams until `stop`, the catch-up bound, a stalled reader or a refused key; then ends the response. */
export async function pumpEvents(input: PumpInput): Promise<void> {
  const { res, stop } = input;
  let ending: Ending = 'done';
  try {
    ending = await pump(input);
  } catch (error) {
    input.log.warn({ err: error }, 'event stream ended by an error');
  }
  if (ending === 'stalled') input.log.info('event stream ended: the reader stopped reading');
  if (ending === 'key' && !stop.aborted) res.write(': the API key no longer works\n\n');
  // A reader that does not read would never take the end either: its socket goes.
  if (ending === 'stalled') res.destroy();
  else res.end();
}

async function pump(input: PumpInput): Promise<Ending> {
  const { res, store, feed, filter, stop, keyStillValid, recheckMs } = input;
  let after = input.after;
  let sent = 0;
  let turnBytes = 0;
  let quietSince = Date.now();
  let checkedAt = Date.now();
  const keyOk = async () => {
    if (Date.now() - checkedAt < recheckMs) return true;
    checkedAt = Date.now();
    return keyStillValid();
  };

  while (!stop.aborted) {
    if (!(await keyOk())) return 'key';
    // Everything up to the feed's position was visible before the read below, so a read that is
    // not full has covered it (filtered reads skip what does not match).
    const known = feed.position;
    const kept = feed.eventsAfter(after, filter);
    let events;
    let next: number;
    let behind = false;
    if (kept !== null) {
      events = kept.events;
      next = kept.upTo;
    } else {
      const page = await readEvents(store, { after, limit: PAGE, ...filter });
      events = page.data;
      behind = page.data.length === PAGE;
      next = behind || known === null ? page.nextSeq : Math.max(page.nextSeq, known);
    }
    for (const { seq, ...event } of events) {
      const text = `id: ${encodeCursor(['events', seq])}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
      // Past the socket's high-water mark, wait for the reader, checking its key meanwhile.
      if (!res.write(text)) {
        const waited = await drainedOrStalled(res, stop, keyOk);
        if (waited !== 'drained') return waited;
      }
      // A fast reader drains at once: still, no more than a slice of bytes per turn of the loop.
      turnBytes += text.length;
      if (turnBytes >= TURN_BYTES) {
        turnBytes = 0;
        await setImmediate();
      }
    }
    after = next;
    sent += events.length;
    if (sent >= CATCH_UP_MAX) {
      // Enough for one connection: EventSource comes back with Last-Event-ID and goes on.
      res.write(': reconnect to go on\n\n');
      return 'done';
    }
    // Catching up: one page per turn of the event loop, so other requests are served between.
    if (behind) {
      await setImmediate();
      continue;
    }
    if (Date.now() - quietSince >= KEEPALIVE_MS) {
      res.write(': keepalive\n\n');
      quietSince = Date.now();
    }
    // The feed may have read more while this stream wrote: then there is no reason to wait.
    const position = feed.position;
    if (position !== null && position > after) continue;
    await waitFor(feed.nextNews(), IDLE_MS, stop);
  }
  return 'done';
}

/** Waits for `drain` in slices of IDLE_MS, checking the key between them, up to STALL_MS. */
async function drainedOrStalled(
  res: ServerResponse,
  stop: AbortSignal,
  keyOk: () => Promise<boolean>,
): Promise<'drained' | Ending> {
  for (let waited = 0; waited < STALL_MS; waited += IDLE_MS) {
    let drained!: () => void;
    const wait = new Promise<void>((resolve) => (drained = resolve));
    res.on('drain', drained);
    res.on('close', drained);
    await waitFor(wait, IDLE_MS, stop);
    res.off('drain', drained);
    res.off('close', drained);
    if (stop.aborted || res.destroyed) return 'done';
    if (res.writableLength < res.writableHighWaterMark) return 'drained';
    if (!(await keyOk())) return 'key';
  }
  return 'stalled';
}

/** Resolves when `wait` does, after `ms`, or at once when `stop` aborts, whichever comes first. */
function waitFor(wait: Promise<void>, ms: number, stop: AbortSignal): Promise<void> {
  if (stop.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    }
    stop.addEventListener('abort', done, { once: true });
    void wait.then(done);
  });
}
