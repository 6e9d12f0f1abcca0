// Admin changes to one account: pause/resume, tags and note (PATCH), stop tracking (DELETE), check now (refresh).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_NOTE_LENGTH, MAX_TAGS, TAG_PATTERN } from '../../domain/account.ts';
import { FREE_TEXT_PATTERN } from '../../domain/text.ts';
import { PerchError } from '../../domain/errors.ts';
import type { Platform } from '../../domain/platforms.ts';
import { changeAccount, refreshAccount, stopTracking } from '../../services/account-admin.ts';
import { getAccount } from '../../services/accounts.ts';
import { switchFollowerList, type FollowerDeps } from '../../services/followers.ts';
import { accountRef } from '../../services/account-refs.ts';
import { actorOf } from '../auth.ts';
import type { TrackerView } from '../../domain/tracker-status.ts';
import type { ServiceDeps } from '../../services/context.ts';
import { AccountSchema, PlatformSchema, problems } from '../schemas.ts';
import { FollowerListSchema } from '../follower-schemas.ts';

const Params = Type.Object({ platform: PlatformSchema, username: Type.String({ minLength: 1, maxLength: 300 }) });
const Change = Type.Object(
  {
    paused: Type.Optional(
      Type.Boolean({ description: 'true pauses tracking; false resumes it (the account is checked soon after).' }),
    ),
    tags: Type.Optional(
      Type.Array(Type.String({ pattern: TAG_PATTERN.source }), {
        maxItems: MAX_TAGS,
        uniqueItems: true,
        description: 'Replaces the tags.',
      }),
    ),
    note: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_NOTE_LENGTH, pattern: FREE_TEXT_PATTERN }), Type.Null()]),
    ),
    followerList: Type.Optional(
      Type.Boolean({
        description:
          'true keeps the list of who follows the account (who followed, who left); false stops it. The answer says what one pass costs (on X, every user of a follower page is billed). Refused with 409 `follower_list_too_large` above FOLLOWER_LIST_MAX followers.',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ paused: true }, { tags: ['founders', 'press'] }, { followerList: true }],
  },
);
const Changed = Type.Object(
  { ...AccountSchema.properties, followerList: Type.Optional(FollowerListSchema) },
  {
    description: 'The updated account; with `followerList` in the request, its follower list and what one pass costs.',
  },
);

export default async function adminAccountRoutes(
  root: FastifyInstance,
  { accounts, followers, tracker }: { accounts: ServiceDeps; followers: FollowerDeps; tracker: TrackerView | null },
) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const refOf = (params: { platform: Platform; username: string }) =>
    accountRef(params.username, params.platform, accounts.config.defaultPlatform);

  app.patch('/api/admin/accounts/:platform/:username', {
    config: { access: 'admin' },
    schema: {
      summary: 'Pause, resume or label an account, or keep its follower list',
      description:
        'Changes what is given: `paused`, `tags` (replaced), `note`, `followerList`. Returns the updated record (with `followerList` asked: the list and the cost of one pass).',
      tags: ['accounts'],
      params: Params,
      body: Change,
      response: { 200: Changed, ...problems(400, 401, 403, 404, 409, 415, 429) },
    },
    handler: async (request) => {
      const { followerList, ...change } = request.body;
      const ref = refOf(request.params);
      const actor = actorOf(request);
      // The follower list first: a refusal (409) changes nothing.
      const list = followerList === undefined ? null : await switchFollowerList(followers, ref, followerList, actor);
      const account =
        Object.keys(change).length > 0
          ? await changeAccount(accounts, ref, change, actor)
          : await getAccount(accounts, ref);
      return list ? { ...account, followerList: list } : account;
    },
  });

  app.delete('/api/admin/accounts/:platform/:username', {
    config: { access: 'admin' },
    schema: {
      summary: 'Stop tracking an account',
      description:
        'Stops tracking. The history is kept (a later import reactivates the account) unless `purge=true`, which deletes the account and everything kept about it.',
      tags: ['accounts'],
      params: Params,
      querystring: Type.Object(
        { purge: Type.Optional(Type.Boolean({ default: false })) },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object(
          { success: Type.Literal(true), purged: Type.Boolean() },
          { examples: [{ success: true, purged: false }] },
        ),
        ...problems(400, 401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      const purge = request.query.purge ?? false;
      await stopTracking(accounts, refOf(request.params), purge, actorOf(request));
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
        description:
          'Makes the account due at once and wakes the tracker; the check itself happens in the background (202). No body is needed (an empty body or `{}` is accepted). A paused account is refused with 409 `account_paused`: resume it with PATCH first.',
        tags: ['accounts'],
        params: Params,
        response: {
          202: Type.Object(
            { success: Type.Literal(true), account: Type.Ref('Account') },
            { examples: [{ success: true, account: AccountSchema.examples[0] }] },
          ),
          ...problems(400, 401, 403, 404, 409, 415, 429),
        },
      },
      // Checked by hand rather than with a body schema, which OpenAPI would turn into a required body.
      preValidation: async (request) => {
        const body: unknown = request.body;
        const empty =
          body === undefined ||
          (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
        if (!empty)
          throw new PerchError('validation_failed', 'The request body is invalid: refresh takes no body (or `{}`).', {
            errors: [{ field: 'body', message: 'must be empty or {}' }],
          });
      },
      handler: async (request, reply) => {
        const account = await refreshAccount(accounts, refOf(request.params), actorOf(request));
        // This process's tracker picks it up at once; trackers elsewhere find it at their next poll.
        tracker?.notify();
        return reply.code(202).send({ success: true as const, account });
      },
    });
  });
}
