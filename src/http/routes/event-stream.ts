// The events as Server-Sent Events: each `id:` is a cursor, and a client reconnecting with
// `Last-Event-ID` (EventSource does it by itself) resumes after the last event it received.
// https://html.spec.whatwg.org/multipage/server-sent-events.html
// A public surface for any key, so bounded: streams per key and per process (429 beyond), a
// lifetime, a paced catch-up (../sse-pump.ts), and the key checked again every 5 s.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PerchError } from '../../domain/errors.ts';
import type { KeyAuthenticator } from '../../services/api-keys.ts';
import { EventFeed, type StreamLimits } from '../../services/event-feed.ts';
import { clampEventPosition, currentEventPosition } from '../../services/events.ts';
import type { Store } from '../../services/context.ts';
import { sendProblem } from '../errors.ts';
import { problems } from '../schemas.ts';
import { CATCH_UP_MAX, pumpEvents } from '../sse-pump.ts';
import { eventFilters, EventFilters, readEventCursor } from './events.ts';

/** How often the process's one poller looks for new events (events may come from any process). */
const POLL_MS = 1_000;
/** The longest a stream may ask to stay open; EventSource reconnects by itself after it. */
const MAX_SECONDS = 900;
/** DESIGN §3: a revocation reaches every process within this. */
const REVOCATION_BOUND_MS = 5_000;
/** What a refused stream is told to wait: streams end within their lifetime, so a slot frees up. */
const RETRY_AFTER_S = 10;

export interface EventStreamDeps {
  store: Store;
  limits: StreamLimits;
  authenticator: Pick<KeyAuthenticator, 'check' | 'onRevoked'>;
  /** KEY_CACHE_TTL: a stream checks its key often enough that a revocation elsewhere ends it within 5 s. */
  keyCacheTtlMs: number;
}

export default async function eventStreamRoutes(root: FastifyInstance, deps: EventStreamDeps) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const feed = new EventFeed(deps.store, deps.limits, POLL_MS, (error) =>
    app.log.warn({ err: error }, 'the event feed could not read new events'),
  );
  // A key revoked through this process ends its streams at once; other processes' within 5 s.
  const forget = deps.authenticator.onRevoked((keyId) => feed.endStreamsOf(keyId));
  // Streams never end by themselves: close them when the server closes, or it would wait for them.
  app.addHook('preClose', async () => {
    forget();
    await feed.close();
  });

  app.get('/api/events/stream', {
    config: { access: 'app' },
    schema: {
      summary: 'Events as Server-Sent Events',
      description: `The events of GET /api/events as a \`text/event-stream\`: \`event:\` is the type, \`data:\` the event document, \`id:\` its cursor. Send \`Last-Event-ID\` (or \`after\`) to resume after an event; without either the stream starts with the next event written; a cursor before the oldest event kept starts at it. Filters as in GET /api/events. A comment line every 15 s keeps the connection alive. Limits: one response sends at most ${CATCH_UP_MAX} events and then ends (EventSource resumes with Last-Event-ID), catching up is paced by the reader (a reader that stops reading for 30 s is let go), a stream ends after \`maxSeconds\` (5 minutes by default, at most ${MAX_SECONDS} s), and the key is checked again every 5 s (a revoked key's stream ends). A key may hold EVENT_STREAMS_PER_KEY streams (5 by default) and a process EVENT_STREAMS_MAX (500): beyond, 429 \`too_many_streams\` with Retry-After.`,
      tags: ['events'],
      headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ maxLength: 200 })) }),
      querystring: Type.Object(
        {
          after: Type.Optional(Type.String({ maxLength: 200 })),
          ...EventFilters,
          maxSeconds: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: MAX_SECONDS,
              default: 300,
              description: `The stream ends after this long (at most ${MAX_SECONDS} s); EventSource reconnects by itself with Last-Event-ID.`,
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
      const filter = eventFilters(request.query);
      const presented = String(request.headers['x-api-key']);
      const { keyId } = request.principal ?? { keyId: '' };
      const stream = feed.open(keyId);
      if (typeof stream === 'string') {
        const detail =
          stream === 'per_key'
            ? `This API key already has ${deps.limits.perKey} open event streams; close one or retry in ${RETRY_AFTER_S} s.`
            : `This server already has ${deps.limits.max} open event streams; retry in ${RETRY_AFTER_S} s.`;
        return sendProblem(reply, new PerchError('too_many_streams', detail), {
          'retry-after': String(RETRY_AFTER_S),
        });
      }
      const stop = new AbortController();
      const ends = setTimeout(() => stop.abort(), (request.query.maxSeconds ?? 300) * 1_000);
      const abort = () => stop.abort();
      stream.ended.addEventListener('abort', abort, { once: true });
      try {
        const after =
          resumeFrom !== undefined && resumeFrom !== ''
            ? await clampEventPosition(deps.store, readEventCursor(resumeFrom))
            : await currentEventPosition(deps.store);
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
        request.raw.on('close', abort);
        await pumpEvents({
          res,
          store: deps.store,
          feed,
          filter,
          after,
          stop: stop.signal,
          keyStillValid: async () => (await deps.authenticator.check(presented)).ok,
          recheckMs: Math.max(1_000, REVOCATION_BOUND_MS - deps.keyCacheTtlMs),
          log: request.log,
        });
      } finally {
        clearTimeout(ends);
        stream.ended.removeEventListener('abort', abort);
        feed.release(stream);
      }
    },
  });
}
