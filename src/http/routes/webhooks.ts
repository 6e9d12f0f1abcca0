// Admin management of webhook endpoints: define (the secret is shown once), list, read, change,
// delete, send a test event, rotate the secret, and read the deliveries log.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  changeWebhook,
  createWebhook,
  deliveriesOf,
  getWebhook,
  listWebhookViews,
  removeWebhook,
  rotateSecret,
  sendTestEvent,
  toView,
  type WebhookDeps,
} from '../../services/webhooks.ts';
import { actorOf } from '../auth.ts';
import { hashRequest, onceOf } from '../idempotency.ts';
import { Deleted, nullable, problems } from '../schemas.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import { Types, Tags, Url, Description, Id, example, WebhookView, secretExample, Attempt } from '../webhook-schemas.ts';

export default async function webhookRoutes(root: FastifyInstance, { webhooks: service }: { webhooks: WebhookDeps }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/api/admin/webhooks', {
    config: { access: 'admin' },
    schema: {
      summary: 'Create a webhook',
      description:
        'Registers an endpoint for the given event types. Deliveries follow Standard Webhooks: a signed POST (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried on WEBHOOK_RETRY_SCHEDULE. The `secret` is in this response only; it is stored sealed.',
      tags: ['webhooks'],
      body: Type.Object(
        { url: Url, events: Types, description: Type.Optional(Description), tags: Type.Optional(Tags) },
        {
          additionalProperties: false,
          examples: [{ url: 'https://hooks.example.com/perch', events: ['account.status_changed'] }],
        },
      ),
      response: {
        201: Type.Object(
          { ...WebhookView.properties, secret: Type.String() },
          { examples: [{ ...example, secret: secretExample }] },
        ),
        ...problems(400, 401, 403, 415, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const { webhook, secret } = await createWebhook(service, request.body, actorOf(request));
      return reply.code(201).send({ ...webhook, secret });
    },
  });

  app.get('/api/admin/webhooks', {
    config: { access: 'admin' },
    schema: {
      summary: 'List webhooks',
      description: 'Every webhook endpoint with its event types, tags and state (never its secret).',
      tags: ['webhooks'],
      response: {
        200: Type.Object({ data: Type.Array(WebhookView) }, { examples: [{ data: [example] }] }),
        ...problems(401, 403, 429),
      },
    },
    handler: async () => ({ data: await listWebhookViews(service) }),
  });

  app.get('/api/admin/webhooks/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Read a webhook',
      description:
        'One endpoint: its definition, whether it is enabled (and why not), and the rotation overlap if one runs.',
      tags: ['webhooks'],
      params: Id,
      response: { 200: WebhookView, ...problems(401, 403, 404, 429) },
    },
    handler: async (request) => toView(await getWebhook(service, request.params.id), service.clock.now()),
  });

  app.patch('/api/admin/webhooks/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Change a webhook',
      description:
        'Changes the URL, the event types, the tags, the description, or enables it again after perch disabled it (its failures start afresh).',
      tags: ['webhooks'],
      params: Id,
      body: Type.Object(
        {
          url: Type.Optional(Url),
          events: Type.Optional(Types),
          enabled: Type.Optional(Type.Boolean()),
          description: Type.Optional(nullable(Description)),
          tags: Type.Optional(Tags),
        },
        { additionalProperties: false, minProperties: 1, examples: [{ enabled: true }] },
      ),
      response: { 200: WebhookView, ...problems(400, 401, 403, 404, 415, 422, 429) },
    },
    handler: async (request) => changeWebhook(service, request.params.id, request.body, actorOf(request)),
  });

  app.delete('/api/admin/webhooks/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Delete a webhook',
      description: 'Deletes the endpoint, its queued deliveries and its log.',
      tags: ['webhooks'],
      params: Id,
      response: {
        200: Deleted(example.id),
        ...problems(401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      await removeWebhook(service, request.params.id, actorOf(request));
      return { success: true as const, id: request.params.id };
    },
  });

  app.post('/api/admin/webhooks/:id/test', {
    config: { access: 'admin' },
    schema: {
      summary: 'Send a test event',
      description: 'Queues a `webhook.test` event to this endpoint alone; see its outcome in the deliveries log.',
      tags: ['webhooks'],
      params: Id,
      response: {
        202: Type.Object(
          { success: Type.Literal(true), eventId: Type.String() },
          { examples: [{ success: true, eventId: 'evt_2m4k8x0q1w9e7r4t6y3u' }] },
        ),
        ...problems(401, 403, 404, 409, 429),
      },
    },
    handler: async (request, reply) =>
      reply.code(202).send({ success: true as const, ...(await sendTestEvent(service, request.params.id)) }),
  });

  app.post('/api/admin/webhooks/:id/rotate-secret', {
    config: { access: 'admin' },
    schema: {
      summary: 'Rotate the secret',
      description:
        'Makes a new secret, shown once. Every secret replaced in the last 24 h keeps signing too (deliveries carry one signature per secret, at most 10), so the receiver can switch at its pace and a second rotation does not cut off the first. Send an `Idempotency-Key` header to make retries safe: a retry returns the first response instead of rotating again.',
      tags: ['webhooks'],
      params: Id,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
      response: {
        200: Type.Object(
          { id: Type.String(), secret: Type.String(), previousSecretUntil: Type.String() },
          { examples: [{ id: example.id, secret: secretExample, previousSecretUntil: '2026-11-24T12:00:00.000Z' }] },
        ),
        ...problems(400, 401, 403, 404, 409, 422, 429),
      },
    },
    handler: async (request, reply) => {
      const once = onceOf(request, hashRequest('rotate-secret', request.params.id));
      const result = await rotateSecret(service, request.params.id, actorOf(request), once);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return { id: request.params.id, ...result.body };
    },
  });

  app.get('/api/admin/webhooks/:id/deliveries', {
    config: { access: 'admin' },
    schema: {
      summary: 'Delivery attempts of a webhook',
      description:
        'Every attempt, newest first: the event, the attempt number, the status code, the time it took, the error, and when it is tried again. Pass `nextCursor` back as `cursor` for older ones.',
      tags: ['webhooks'],
      params: Id,
      querystring: Type.Object(
        {
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object(
          { data: Type.Array(Attempt), nextCursor: nullable(Type.String()) },
          {
            examples: [
              {
                data: [
                  {
                    eventId: 'evt_2m4k8x0q1w9e7r4t6y3u',
                    eventType: 'webhook.test',
                    attempt: 1,
                    at: '2026-11-23T12:00:01.000Z',
                    statusCode: 200,
                    durationMs: 42,
                    error: null,
                    nextRetryAt: null,
                  },
                ],
                nextCursor: null,
              },
            ],
          },
        ),
        ...problems(400, 401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      const limit = request.query.limit ?? 100;
      const before =
        request.query.cursor === undefined
          ? undefined
          : decodeCursor(request.query.cursor, 'attempts', ['int'] as const)[0];
      const rows = await deliveriesOf(service, request.params.id, {
        limit,
        ...(before !== undefined ? { before } : {}),
      });
      const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
      return {
        data: rows.map((r) => ({
          eventId: r.eventId,
          eventType: r.eventType,
          attempt: r.attempt,
          at: new Date(r.at).toISOString(),
          statusCode: r.statusCode,
          durationMs: r.durationMs,
          error: r.error,
          nextRetryAt: iso(r.nextRetryAt),
        })),
        nextCursor: rows.length === limit ? encodeCursor(['attempts', rows.at(-1)?.id]) : null,
      };
    },
  });
}
