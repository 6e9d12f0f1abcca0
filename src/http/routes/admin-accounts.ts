// Admin changes to one account: pause/resume, tags and note (PATCH), stop tracking (DELETE).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_NOTE_LENGTH, MAX_TAGS, TAG_PATTERN } from '../../domain/account.ts';
import { FREE_TEXT_PATTERN } from '../../domain/text.ts';
import { updateAccount, untrackAccount } from '../../storage/accounts-repo.ts';
import { writeAudit } from '../../storage/audit-repo.ts';
import { actorOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { PlatformSchema, problems } from '../schemas.ts';
import { notTracked, refOrThrow } from './accounts.ts';

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
      return account;
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
}

