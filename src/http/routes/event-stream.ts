// The events as Server-Sent Events: each `id:` is a cursor, and a client reconnecting with
// `Last-Event-ID` (EventSource does it by itself) resumes after the last event it received.
// https://html.spec.whatwg.org/multipage/server-sent-events.html
import type { ServerResponse } from 'node:http';
import { setImmediate } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { clampEventPosition, currentEventPosition, readEvents } from '../../services/events.ts';
import type { Store } from '../../services/context.ts';
import { problems } from '../schemas.ts';
import { eventCursor, eventFilters, EventFilters, readEventCursor } from './events.ts';

/** How often an open stream looks for new events (events may come from any process). */
const POLL_MS = 1_000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
const PAGE = 200;
/**
 * What one connection sends before it ends, so that catching up from an old cursor is a series of
 * bounded responses: EventSource reconnects by itself with Last-Event-ID and goes on from there.
 */
const CATCH_UP_MAX = 10_000;
/** A reader whose socket has not drained for this long is let go (its unsent bytes stay bounded meanwhile). */
const STALL_MS = 30_000;
/** What a stream writes in one turn of the event loop before it lets other work run. */
const TURN_BYTES = 32 * 1_024;

export default async function eventStreamRoutes(root: FastifyInstance, deps: { store: Store }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const open = new Set<AbortController>();
  // Streams never end by themselves: close them when the server closes, or it would wait for them.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.abort();
  });

  app.get('/api/events/stream', {
    config: { access: 'app' },
    schema: {
      summary: 'Events as Server-Sent Events',
      description:
        'The events of GET /api/events as a `text/event-stream`: `event:` is the type, `data:` the event document, `id:` its cursor. Send `Last-Event-ID` (or `after`) to resume after an event; without either the stream starts with the next event written. Filters as in GET /api/events. A comment line every 15 s keeps the connection alive. The server ends a stream after `maxSeconds` (5 minutes by default) and EventSource reconnects by itself with Last-Event-ID, so long-lived streams spread over the API processes behind a load balancer.',
      tags: ['events'],
      headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 200 })) }),
      querystring: Type.Object(
        {
          after: Type.Optional(Type.String({ maxLength: 200 })),
          ...EventFilters,
          maxSeconds: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 3_600,
              default: 300,
              description: 'The stream ends after this long; EventSource reconnects by itself with Last-Event-ID.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      produces: ['text/event-stream'],
      response: {
        200: {
          description: 'A stream of events.',
          content: {
            'text/event-stream': {
              schema: Type.String({
                examples: [
                  'id: WyJldmVudHMiLDQyXQ\nevent: account.renamed\ndata: {"id":"evt_…","type":"account.renamed",…}\n\n',
                ],
              }),
            },
          },
        },
        ...problems(400, 401, 429),
      },
    },
    handler: async (request, reply) => {
      const resumeFrom = request.headers['last-event-id'] ?? request.query.after;
      // Checked before the stream opens, so a bad cursor or filter is a plain 400.
      const filters = eventFilters(request.query);
      let after =
        resumeFrom !== undefined && resumeFrom !== ''
          ? await clampEventPosition(deps.store, readEventCursor(resumeFrom))
          : await currentEventPosition(deps.store);
      const stop = new AbortController();
      open.add(stop);
      const ends = setTimeout(() => stop.abort(), (request.query.maxSeconds ?? 300) * 1_000);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      // retry: how long EventSource waits before it reconnects after the stream ends.
      res.write(': perch events\nretry: 1000\n\n');
      request.raw.on('close', () => stop.abort());
      let quietSince = Date.now();
      let sent = 0;
      let turnBytes = 0;
      try {
        while (!stop.signal.aborted) {
          const page = await readEvents(deps.store, { after, limit: PAGE, ...filters });
          for (const { seq, ...event } of page.data) {
            const text = `id: ${eventCursor(seq)}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
            // Past the socket's high-water mark, wait for the reader; one that stalls is let go.
            if (!res.write(text) && !(await drained(res, stop.signal, STALL_MS))) {
              if (!stop.signal.aborted) request.log.info('event stream ended: the reader stopped reading');
              res.destroy();
              return;
            }
            // A fast reader drains at once: still, no more than a slice of bytes per turn of the loop.
            turnBytes += text.length;
            if (turnBytes >= TURN_BYTES) {
              turnBytes = 0;
              await setImmediate();
            }
          }
          after = page.nextSeq;
          sent += page.data.length;
          if (sent >= CATCH_UP_MAX) {
            // Enough for one connection: EventSource comes back with Last-Event-ID and goes on.
            res.write(': reconnect to go on\n\n');
            break;
          }
          // Catching up: one page per turn of the event loop, so other requests are served between.
          if (page.data.length === PAGE) {
            await setImmediate();
            continue;
          }
          if (Date.now() - quietSince >= KEEPALIVE_MS) {
            res.write(': keepalive\n\n');
            quietSince = Date.now();
          }
          await waitOrAbort(POLL_MS, stop.signal);
        }
      } catch (error) {
        request.log.warn({ err: error }, 'event stream ended by an error');
      } finally {
        clearTimeout(ends);
        open.delete(stop);
        res.end();
      }
    },
  });
}

/** Resolves true once `res` has drained, false when it closed, the stream ended or `ms` passed first. */
function drained(res: ServerResponse, signal: AbortSignal, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), ms);
    const onDrain = () => done(true);
    const onEnd = () => done(false);
    function done(ok: boolean) {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onEnd);
      signal.removeEventListener('abort', onEnd);
      resolve(ok && !signal.aborted);
    }
    if (signal.aborted) return done(false);
    res.on('drain', onDrain);
    res.on('close', onEnd);
    signal.addEventListener('abort', onEnd, { once: true });
  });
}

function waitOrAbort(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
