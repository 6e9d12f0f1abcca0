// Admin changes to one account: pause/resume, tags and note (PATCH), stop tracking (DELETE), check now (refresh).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_NOTE_LENGTH, MAX_TAGS, TAG_PATTERN } from '../../domain/account.ts';
import { FREE_TEXT_PATTERN } from '../../domain/text.ts';
import { PerchError } from '../../domain/errors.ts';
import { findAccount, updateAccount, untrackAccount } from '../../storage/accounts-repo.ts';
import { writeAudit } from '../../storage/audit-repo.ts';
import { findAccountRowId } from '../../storage/history-repo.ts';
import { makeDueNow } from '../../storage/tracking-repo.ts';
import { actorOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { AccountSchema, PlatformSchema, problems } from '../schemas.ts';
import { notTracked, present, refOrThrow } from './accounts.ts';

const Params = Type.Object({ platform: PlatformSchema, username: Type.String({ minLength: 1, maxLength: 300 }) });
const Change = Type.Object(
  {
    paused: Type.Optional(Type.Boolean({ description: 'true pauses tracking; false resumes it (the account is checked soon after).' })),
    tags: Type.Optional(Type.Array(Type.String({ pattern: TAG_PATTERN.source }), { maxItems: MAX_TAGS, uniqueItems: true, description: 'Replaces the tags.' })),
    note: Type.Optional(Type.Union([Type.String({ maxLength: MAX_NOTE_LENGTH, pattern: FREE_TEXT_PATTERN }), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ paused: true }, { tags: ['founders', 'press'] }] },
);

export default async function adminAccountRoutes(root: FastifyInstance, deps: AppDeps) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = deps.store;

  app.patch('/api/admin/accounts/:platform/:username', {
    config: { access: 'admin' },
    schema: {
      summary: 'Pause, resume or label an account',
      description: 'Changes what is given: `paused`, `tags` (replaced), `note`. Returns the updated record.',
      tags: ['accounts'],
      params: Params,
      body: Change,
      response: { 200: Type.Ref('Account'), ...problems(400, 401, 403, 404, 415, 429) },
    },
    handler: async (request) => {
      const { platform, username } = request.params;
      const ref = refOrThrow(username, platform, deps);
      const now = deps.clock.now();
      const account = await db.transaction().execute(async (trx) => {
        const updated = await updateAccount(trx, ref, request.body, now);
        if (updated) await writeAudit(trx, { actor: actorOf(request), action: 'account.update', target: updated.id, detail: request.body, at: now });
        return updated;
      });
      if (!account) throw notTracked(username);
      return present(account, deps);
    },
  });

  app.delete('/api/admin/accounts/:platform/:username', {
    config: { access: 'admin' },
    schema: {
      summary: 'Stop tracking an account',
      description: 'Stops tracking. The history is kept (a later import reactivates the account) unless `purge=true`, which deletes the account and everything kept about it.',
      tags: ['accounts'],
      params: Params,
      querystring: Type.Object({ purge: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false }),
      response: {
        200: Type.Object({ success: Type.Literal(true), purged: Type.Boolean() }, { examples: [{ success: true, purged: false }] }),
        ...problems(400, 401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      const { platform, username } = request.params;
      const purge = request.query.purge ?? false;
      const ref = refOrThrow(username, platform, deps);
      const now = deps.clock.now();
      const done = await db.transaction().execute(async (trx) => {
        const removed = await untrackAccount(trx, ref, purge, now);
        if (removed) await writeAudit(trx, { actor: actorOf(request), action: purge ? 'account.purge' : 'account.untrack', target: `${ref.platform}:${ref.key}`, at: now });
        return removed;
      });
      if (!done) throw notTracked(username);
      return { success: true as const, purged: purge };
    },
  });

  // Refresh takes no body. Clients often send `Content-Type: application/json` with nothing after
  // it, which Fastify's JSON parser refuses, so this route's own scope reads an empty JSON body as none.
  await app.register(async (scope) => {
    const parseJson = scope.getDefaultJsonParser('error', 'error');
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = String(body); // parseAs 'string': always a string already
      if (text === '') done(null, undefined);
      else parseJson(request, text, done);
    });

    scope.withTypeProvider<TypeBoxTypeProvider>().post('/api/admin/accounts/:platform/:username/refresh', {
      config: { access: 'admin' },
      schema: {
        summary: 'Check an account now',
        description: 'Makes the account due at once and wakes the tracker; the check itself happens in the background (202). No body is needed (an empty body or `{}` is accepted). A paused account is refused with 409 `account_paused`: resume it with PATCH first.',
        tags: ['accounts'],
        params: Params,
        response: {
          202: Type.Object({ success: Type.Literal(true), account: Type.Ref('Account') }, { examples: [{ success: true, account: AccountSchema.examples[0] }] }),
          ...problems(400, 401, 403, 404, 409, 415, 429),
        },
      },
      // Checked by hand rather than with a body schema, which OpenAPI would turn into a required body.
      preValidation: async (request) => {
        const body: unknown = request.body;
        const empty = body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
        if (!empty) throw new PerchError('validation_failed', 'The request body is invalid: refresh takes no body (or `{}`).', { errors: [{ field: 'body', message: 'must be empty or {}' }] });
      },
      handler: async (request, reply) => {
        const { platform, username } = request.params;
        const ref = refOrThrow(username, platform, deps);
        const now = deps.clock.now();
        const account = await db.transaction().execute(async (trx) => {
          const id = await findAccountRowId(trx, ref);
          if (id === null) return null;
          if (!(await makeDueNow(trx, id, now))) {
            // Not updated although tracked a moment ago: paused (or untracked since, which is a 404).
            if ((await findAccountRowId(trx, ref)) === null) return null;
            throw new PerchError('account_paused', `${username.slice(0, 100)} is paused, so it is not checked; resume it first with PATCH on this account and {"paused": false}.`);
          }
          const refreshed = await findAccount(trx, ref);
          if (refreshed) await writeAudit(trx, { actor: actorOf(request), action: 'account.refresh', target: refreshed.id, at: now });
          return refreshed;
        });
        if (!account) throw notTracked(username);
        // This process's tracker picks it up at once; trackers elsewhere find it at their next poll.
        deps.tracker?.notify();
        return reply.code(202).send({ success: true as const, account: present(account, deps) });
      },
    });
  });
}
