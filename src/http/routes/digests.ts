// Admin management of digests (DESIGN §12): define, list, read, change, delete, preview the next
// one rendered now, and read the periods sent; and the mail delivery log. Bodies are checked field
// by field by the domain (domain/digests.ts), so the API, the dashboard and the CLI say the same.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  changeDigest,
  createDigest,
  previewDigest,
  readDigest,
  readDigests,
  readDigestSends,
  removeDigest,
  type DigestDeps,
} from '../../services/digests.ts';
import { readMailLog } from '../../services/mail-log.ts';
import { actorOf } from '../auth.ts';
import { Deleted, problems } from '../schemas.ts';
import { Body, DigestView, example, Id, MailAttempt, Preview, Send } from '../digest-schemas.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export default async function digestRoutes(root: FastifyInstance, { digests: service }: { digests: DigestDeps }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['digests'];

  app.post('/api/admin/digests', {
    config: { access: 'admin' },
    schema: {
      summary: 'Create a digest',
      description: 'A summary mailed daily or weekly at a local time (DST-aware) to its recipients, once per period.',
      tags,
      body: Body,
      response: { 201: DigestView, ...problems(400, 401, 403, 415, 429) },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await createDigest(service, request.body, actorOf(request))),
  });

  app.get('/api/admin/digests', {
    config: { access: 'admin' },
    schema: {
      summary: 'List digests',
      description: 'Every digest with its scope, schedule, recipients and next send time.',
      tags,
      response: { 200: Type.Object({ data: Type.Array(DigestView) }), ...problems(401, 403, 429) },
    },
    handler: async () => ({ data: await readDigests(service) }),
  });

  app.get('/api/admin/digests/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Read a digest',
      description: 'One digest: its scope, schedule, recipients and next send time.',
      tags,
      params: Id,
      response: { 200: DigestView, ...problems(401, 403, 404, 429) },
    },
    handler: async (request) => readDigest(service, request.params.id),
  });

  app.patch('/api/admin/digests/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Change a digest',
      description: 'Changes the given fields; fields left out keep their value. Checked like a new digest.',
      tags,
      params: Id,
      body: Body,
      response: { 200: DigestView, ...problems(400, 401, 403, 404, 415, 429) },
    },
    handler: async (request) => changeDigest(service, request.params.id, request.body, actorOf(request)),
  });

  app.delete('/api/admin/digests/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Delete a digest',
      description: 'Removes the digest; periods already sent stay in the mail log.',
      tags,
      params: Id,
      response: {
        200: Deleted(example.id),
        ...problems(401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      await removeDigest(service, request.params.id, actorOf(request));
      return { success: true as const, id: request.params.id };
    },
  });

  app.get('/api/admin/digests/:id/preview', {
    config: { access: 'admin' },
    schema: {
      summary: 'Preview the next digest',
      description:
        'The period that ends at the next send, rendered now (HTML and plain text), whether or not mail is on.',
      tags,
      params: Id,
      response: { 200: Preview, ...problems(401, 403, 404, 429) },
    },
    handler: async (request) => previewDigest(service, request.params.id),
  });

  app.get('/api/admin/digests/:id/sends', {
    config: { access: 'admin' },
    schema: {
      summary: 'Periods sent',
      description: 'The periods claimed for sending, newest first; late ones went out after perch was down.',
      tags,
      params: Id,
      response: { 200: Type.Object({ data: Type.Array(Send) }), ...problems(401, 403, 404, 429) },
    },
    handler: async (request) => ({
      data: (await readDigestSends(service, request.params.id)).map((s) => ({
        ...s,
        periodStart: iso(s.periodStart),
        periodEnd: iso(s.periodEnd),
        claimedAt: iso(s.claimedAt),
      })),
    }),
  });

  app.get('/api/admin/mail', {
    config: { access: 'admin' },
    schema: {
      summary: 'Mail delivery log',
      description: 'Every attempt to send a message (digests and alerts), newest first.',
      tags,
      querystring: Type.Object({
        before: Type.Optional(Type.Integer({ minimum: 1 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
      }),
      response: { 200: Type.Object({ data: Type.Array(MailAttempt) }), ...problems(400, 401, 403, 429) },
    },
    handler: async (request) => ({
      data: (await readMailLog(service, request.query)).map((a) => ({
        ...a,
        at: iso(a.at),
        nextRetryAt: a.nextRetryAt === null ? null : iso(a.nextRetryAt),
      })),
    }),
  });
}
