// Admins list past imports (who, when, counts) and the audit log of admin actions.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listAuditLog } from '../../services/audit.ts';
import { listImportPage } from '../../services/import-accounts.ts';
import type { Store } from '../../services/context.ts';
import { problems } from '../schemas.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';

const ImportView = Type.Object({
  id: Type.String(),
  createdAt: Type.String(),
  createdBy: Type.Union([Type.String(), Type.Null()], { description: 'Id of the key that sent the import.' }),
  source: Type.String({ description: 'json, data-url, text/csv, multipart or cli' }),
  received: Type.Integer(),
  accepted: Type.Integer(),
  inserted: Type.Integer(),
  reactivated: Type.Integer(),
  alreadyTracked: Type.Integer(),
  duplicates: Type.Integer(),
  rejectedCount: Type.Integer(),
  durationMs: Type.Integer(),
});
const importExample = {
  id: 'imp_8d2kq0c1m3x5z7b9n4v6',
  createdAt: '2026-11-23T12:00:00.000Z',
  createdBy: 'key_env_admin',
  source: 'json',
  received: 3,
  accepted: 3,
  inserted: 3,
  reactivated: 0,
  alreadyTracked: 0,
  duplicates: 0,
  rejectedCount: 0,
  durationMs: 12,
};

export default async function importRoutes(root: FastifyInstance, deps: { store: Store }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/api/admin/imports', {
    config: { access: 'admin' },
    schema: {
      summary: 'Past imports',
      description: 'Every import, newest first, with who sent it and its counts. Pass `nextCursor` back as `cursor`.',
      tags: ['accounts'],
      querystring: Type.Object(
        {
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
          cursor: Type.Optional(Type.String({ maxLength: 500 })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object(
          { data: Type.Array(ImportView), nextCursor: Type.Union([Type.String(), Type.Null()]) },
          { examples: [{ data: [importExample], nextCursor: null }] },
        ),
        ...problems(400, 401, 403, 429),
      },
    },
    handler: async (request) => {
      const limit = request.query.limit ?? 50;
      const before =
        request.query.cursor === undefined
          ? undefined
          : decodeCursor(request.query.cursor, 'imports', ['int', 'text'] as const);
      const data = await listImportPage(deps.store, limit, before);
      const last = data.at(-1);
      return {
        data,
        nextCursor:
          data.length === limit && last ? encodeCursor(['imports', Date.parse(last.createdAt), last.id]) : null,
      };
    },
  });

  app.get('/api/admin/audit', {
    config: { access: 'admin' },
    schema: {
      summary: 'Audit log',
      description: 'The latest admin actions (key creation and revocation, imports, account changes), newest first.',
      tags: ['keys'],
      querystring: Type.Object(
        { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object(
          {
            data: Type.Array(
              Type.Object({
                id: Type.Integer(),
                at: Type.String(),
                actor: Type.Union([Type.String(), Type.Null()]),
                action: Type.String(),
                target: Type.Union([Type.String(), Type.Null()]),
                detail: Type.Unknown(),
              }),
            ),
          },
          {
            examples: [
              {
                data: [
                  {
                    id: 1,
                    at: '2026-11-23T12:00:00.000Z',
                    actor: 'key_env_admin',
                    action: 'api_key.create',
                    target: 'key_0k3j5m2x8q1w9e7r4t6y',
                    detail: { role: 'app' },
                  },
                ],
              },
            ],
          },
        ),
        ...problems(400, 401, 403, 429),
      },
    },
    handler: async (request) => ({ data: await listAuditLog(deps.store, request.query.limit ?? 50) }),
  });
}
