// The events as Server-Sent Events: each `id:` is a cursor, and a client reconnecting with
// `Last-Event-ID` (EventSource does it by itself) resumes after the last event it received.
// https://html.spec.whatwg.org/multipage/server-sent-events.html
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { currentEventPosition, readEvents } from '../../services/events.ts';
import type { Store } from '../../services/context.ts';
import { problems } from '../schemas.ts';
import { eventCursor, eventFilters, EventFilters, readEventCursor } from './events.ts';

/** How often an open stream looks for new events (events may come from any process). */
const POLL_MS = 1_000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
const PAGE = 200;

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
          ? readEventCursor(resumeFrom)
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
      try {
        while (!stop.signal.aborted) {
          const page = await readEvents(deps.store, { after, limit: PAGE, ...filters });
          for (const { seq, ...event } of page.data)
            res.write(`id: ${eventCursor(seq)}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
          after = page.nextSeq;
          if (page.data.length === PAGE) continue;
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
