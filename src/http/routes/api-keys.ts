// Admin management of API keys: create (the key is shown once), list (never the secret), revoke.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PerchError } from '../../domain/errors.ts';
import { ROLES } from '../../domain/roles.ts';
import { issueApiKey, listKeys, revokeKey, type KeyDeps } from '../../services/api-keys.ts';
import { actorOf } from '../auth.ts';
import { hashRequest, onceOf } from '../idempotency.ts';
import { literals, problems } from '../schemas.ts';

// One line of text, not blank, without control characters.
const text = (max: number) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]+$' });
const nullableString = Type.Union([Type.String(), Type.Null()]);

const KeyFields = {
  id: Type.String(),
  role: literals(ROLES),
  username: Type.String(),
  name: nullableString,
  start: Type.String({ description: 'The first characters of the key, to recognise it.' }),
  createdAt: Type.String(),
  expiresAt: nullableString,
};
const ApiKeyView = Type.Object({
  ...KeyFields,
  createdBy: nullableString,
  revokedAt: nullableString,
  lastUsedAt: nullableString,
});
const keyExample = {
  id: 'key_0k3j5m2x8q1w9e7r4t6y',
  role: 'app',
  username: 'bob',
  name: null,
  start: 'perch_3xK9',
  createdAt: '2026-11-23T12:00:00.000Z',
  expiresAt: null,
};

const CreateBody = Type.Object(
  {
    role: literals(ROLES),
    username: text(100),
    name: Type.Optional(text(100)),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false, examples: [{ role: 'app', username: 'bob' }] },
);
const Created = Type.Object(
  {
    success: Type.Literal(true),
    apiKey: Type.String({ description: 'The key itself: shown this once, never again.' }),
    ...KeyFields,
  },
  { examples: [{ success: true, apiKey: 'perch_3xK9…', ...keyExample }] },
);

export default async function apiKeyRoutes(
  root: FastifyInstance,
  { keys, keyCacheTtlMs }: { keys: KeyDeps; keyCacheTtlMs: number },
) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/api/admin/api-keys', {
    config: { access: 'admin' },
    schema: {
      summary: 'Create an API key',
      description:
        'Creates a key with the role `app` (read accounts) or `admin` (everything). The key is in the response once and is stored only as a keyed hash. Send an `Idempotency-Key` header to make retries safe: a retry returns the first response.',
      tags: ['keys'],
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
      body: CreateBody,
      response: { 201: Created, ...problems(400, 401, 403, 409, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const body = request.body;
      const expiresAt = body.expiresAt === undefined ? null : Date.parse(body.expiresAt);
      // date-time admits forms Date cannot read (a leap second `23:59:60`): refuse rather than never expire.
      if (expiresAt !== null && !Number.isFinite(expiresAt)) {
        throw new PerchError(
          'validation_failed',
          'expiresAt is not a date this server can read; use e.g. 2030-01-31T00:00:00Z.',
          { errors: [{ field: 'body/expiresAt', message: 'is not a readable date' }] },
        );
      }
      const once = onceOf(request, hashRequest(JSON.stringify(body)));
      const input = {
        role: body.role,
        username: body.username,
        name: body.name ?? null,
        expiresAt,
        actor: actorOf(request),
      };
      const result = await issueApiKey(keys, input, once);
      const created = result.body;
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send({
        success: true as const,
        apiKey: created.apiKey,
        id: created.id,
        role: created.role,
        username: created.username,
        name: created.name,
        start: created.start,
        createdAt: created.createdAt,
        expiresAt: created.expiresAt,
      });
    },
  });

  app.get('/api/admin/api-keys', {
    config: { access: 'admin' },
    schema: {
      summary: 'List API keys',
      description:
        'Lists keys by id, without their secret. Revoked keys are left out unless `includeRevoked=true`. Pages of `limit` keys; pass `nextCursor` back as `cursor`.',
      tags: ['keys'],
      querystring: Type.Object(
        {
          includeRevoked: Type.Optional(Type.Boolean({ default: false })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
          cursor: Type.Optional(Type.String({ pattern: '^key_[a-z0-9_]{1,40}$' })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object(
          { data: Type.Array(ApiKeyView), nextCursor: nullableString },
          {
            examples: [
              {
                data: [{ ...keyExample, createdBy: 'key_env_admin', revokedAt: null, lastUsedAt: null }],
                nextCursor: null,
              },
            ],
          },
        ),
        ...problems(400, 401, 403, 429),
      },
    },
    handler: async (request) => {
      const limit = request.query.limit ?? 100;
      const page = await listKeys(keys, {
        includeRevoked: request.query.includeRevoked ?? false,
        limit,
        ...(request.query.cursor ? { after: request.query.cursor } : {}),
      });
      return { data: page, nextCursor: page.length === limit ? (page.at(-1)?.id ?? null) : null };
    },
  });

  app.delete('/api/admin/api-keys/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Revoke an API key',
      description: `Revokes a key at once on this process, and on every other process within ${keyCacheTtlMs / 1000} s (KEY_CACHE_TTL). Revoking twice is harmless. The last admin key cannot be revoked while ADMIN_API_KEY is unset (409).`,
      tags: ['keys'],
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: {
        200: Type.Object(
          { success: Type.Literal(true), id: Type.String(), revokedAt: Type.String() },
          { examples: [{ success: true, id: keyExample.id, revokedAt: '2026-11-24T08:00:00.000Z' }] },
        ),
        ...problems(401, 403, 404, 409, 429),
      },
    },
    handler: async (request) => {
      const { id } = request.params;
      const { revokedAt } = await revokeKey(keys, id, actorOf(request));
      return { success: true as const, id, revokedAt: new Date(revokedAt).toISOString() };
    },
  });
}
