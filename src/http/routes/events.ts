// Reading events: a page after a cursor, oldest first. Polling with the last cursor returns only
// newer events, never one twice and never one skipped (events-repo.ts says how, on PostgreSQL too).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PerchError } from '../../domain/errors.ts';
import { EVENT_TYPES } from '../../domain/events.ts';
import { readEvents } from '../../services/events.ts';
import type { Store } from '../../services/context.ts';
import { EVENT_DATA_SCHEMAS, EventSchema } from '../event-schemas.ts';
import { nullable, PlatformSchema, problems } from '../schemas.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';

export const eventCursor = (seq: number): string => encodeCursor(['events', seq]);
export const readEventCursor = (cursor: string): number => decodeCursor(cursor, 'events', ['int'] as const)[0];

export const EventFilters = {
  type: Type.Optional(Type.String({ maxLength: 500, description: 'Event types, separated by commas.' })),
  platform: Type.Optional(PlatformSchema),
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
};

/** The filters of a query, checked: unknown types are a 400, not an empty page. */
export function eventFilters(query: { type?: string; platform?: string; username?: string }) {
  const types =
    query.type === undefined
      ? undefined
      : query.type
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '');
  const unknown = types?.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t)) ?? [];
  if (unknown.length > 0) {
    throw new PerchError(
      'validation_failed',
      `Unknown event type ${unknown.map((t) => `"${t.slice(0, 60)}"`).join(', ')}; known types: ${EVENT_TYPES.join(', ')}.`,
      { errors: [{ field: 'querystring/type', message: 'names an unknown event type' }] },
    );
  }
  return {
    ...(types && types.length > 0 ? { types } : {}),
    ...(query.platform !== undefined ? { platform: query.platform } : {}),
    ...(query.username !== undefined ? { usernameKey: query.username.replace(/^@/, '').toLowerCase() } : {}),
  };
}

export default async function eventRoutes(root: FastifyInstance, deps: { store: Store }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(EventSchema);
  for (const schema of EVENT_DATA_SCHEMAS) app.addSchema(schema);

  app.get('/api/events', {
    config: { access: 'app' },
    schema: {
      summary: 'Events, oldest first',
      description:
        'What changed: account.checked_first, account.status_changed, account.renamed, account.followers_milestone, account.followers_spike, import.completed, webhook.test (each `data` is the `Event.<type>` schema). Without `after` the page starts at the oldest event kept (EVENT_RETENTION). Pass `nextCursor` back as `after` to poll: you get only newer events, none twice and none skipped, however many processes write them. `nextCursor` is never null: with nothing new it is the cursor you sent. `type`, `platform` and `username` filter alone or together, read from indexes: a page holds `limit` events unless nothing newer matches.',
      tags: ['events'],
      querystring: Type.Object(
        {
          after: Type.Optional(Type.String({ maxLength: 200 })),
          ...EventFilters,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000, default: 100 })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object(
          { data: Type.Array(Type.Ref('Event')), nextCursor: nullable(Type.String()) },
          { examples: [{ data: [EventSchema.examples[0]], nextCursor: 'WyJldmVudHMiLDQyXQ' }] },
        ),
        ...problems(400, 401, 429),
      },
    },
    handler: async (request) => {
      const { after, limit } = request.query;
      const page = await readEvents(deps.store, {
        after: after === undefined ? 0 : readEventCursor(after),
        limit: limit ?? 100,
        ...eventFilters(request.query),
      });
      return { data: page.data.map(({ seq: _seq, ...event }) => event), nextCursor: eventCursor(page.nextSeq) };
    },
  });
}
