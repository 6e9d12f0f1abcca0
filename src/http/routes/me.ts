// Who am I: the calling key's id, role and owner.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../auth.ts';
import { problems } from '../schemas.ts';

const Me = Type.Object(
  {
    keyId: Type.String(),
    role: Type.String(),
    username: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    expiresAt: Type.Union([Type.String(), Type.Null()]),
  },
  { examples: [{ keyId: 'key_4f9x2k', role: 'app', username: 'bob', name: 'dashboard', expiresAt: null }] },
);

export default async function meRoutes(app: FastifyInstance) {
  app.get('/api/me', {
    config: { access: 'app' },
    schema: {
      summary: 'The calling key',
      description: 'Returns the id, role and owner of the API key sent in x-api-key. Any valid key may call it.',
      tags: ['keys'],
      response: { 200: Me, ...problems(401, 429) },
    },
    handler: async (request) => principalOf(request),
  });
}
