// Reading tracked accounts: one (by query or path), a batch of up to 100, or a filtered page.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ACCOUNT_SORTS, ACCOUNT_STATUSES, TAG_PATTERN, type AccountSort } from '../../domain/account.ts';
import { PLAIN_TEXT_PATTERN } from '../../domain/text.ts';
import { PerchError } from '../../domain/errors.ts';
import { accountRef } from '../../services/account-refs.ts';
import type { Account } from '../../domain/account.ts';
import { countMatchingAccounts, getAccountAnswer, getAccounts, listAccountPage } from '../../services/accounts.ts';
import type { ServiceDeps } from '../../services/context.ts';
import { AccountSchema, PlatformSchema, literals, nullable, problems } from '../schemas.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';

const MAX_BATCH = 100;

/** The list's filters, the same on the page and on its count. */
const Filters = {
  platform: Type.Optional(PlatformSchema),
  status: Type.Optional(literals(ACCOUNT_STATUSES)),
  tag: Type.Optional(Type.String({ pattern: TAG_PATTERN.source, description: 'Accounts with this tag.' })),
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 253, pattern: PLAIN_TEXT_PATTERN, description: 'Username prefix.' }),
  ),
};

const Query = Type.Object(
  {
    username: Type.Optional(
      Type.String({ minLength: 1, maxLength: 300, description: 'One account: a username, @name, profile URL or DID.' }),
    ),
    usernames: Type.Optional(
      Type.String({ minLength: 1, maxLength: 30_000, description: `Up to ${MAX_BATCH} usernames, comma-separated.` }),
    ),
    ...Filters,
    sort: Type.Optional(literals(ACCOUNT_SORTS)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
    cursor: Type.Optional(Type.String({ maxLength: 1_000 })),
  },
  { additionalProperties: false },
);

const Batch = Type.Object({ data: Type.Array(Type.Ref('Account')), missing: Type.Array(Type.String()) });
const Page = Type.Object({
  data: Type.Array(Type.Ref('Account')),
  nextCursor: nullable(Type.String()),
});

/**
 * One account, a batch or a page, told apart by their members (`data`, then `missing`) rather than
 * as `anyOf`: the serializer of an `anyOf` validates the record against each choice in turn before
 * writing it, which on this route cost more than writing it. Typed `unknown`, as the Ref to the
 * record was: the handler's values are the domain's Account.
 */
const OneBatchOrPage = Type.Unsafe<unknown>({
  description:
    'One account (`username`), a batch (`usernames`: `data` and `missing`) or a page (`data` and `nextCursor`).',
  if: { type: 'object', required: ['data'] },
  then: { if: { type: 'object', required: ['missing'] }, then: Batch, else: Page },
  else: Type.Ref('Account'),
  examples: [{ data: [AccountSchema.examples[0]], nextCursor: null }],
});

/**
 * Sends one account: JSON text written from the store goes out as it is (Fastify sends a string with
 * a JSON content type without serializing it), an Account through the route's serializer.
 */
function sendAccount(reply: FastifyReply, answer: { json: string } | Account): FastifyReply | Account {
  return 'json' in answer ? reply.type('application/json; charset=utf-8').send(answer.json) : answer;
}

export default async function accountRoutes(root: FastifyInstance, { accounts }: { accounts: ServiceDeps }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/api/', {
    config: { access: 'app' },
    schema: {
      summary: 'Account details',
      description: [
        '`?username=NAME[&platform=x]`: one account record; 404 if it is not tracked.',
        `\`?usernames=a,b,c\` (at most ${MAX_BATCH}): \`{ data, missing }\`.`,
        'Otherwise a page `{ data, nextCursor }`, filtered by `status`, `platform`, `tag` and `q` (username prefix), alone or together, sorted by `sort` (`username`, `-followers`, `-followersChange7d`, `-lastCheckedAt`), `limit` 1-500 (50). Pass `nextCursor` back as `cursor`; pages stay stable while accounts are added. A page holds `limit` accounts unless it is the last: `nextCursor` is null exactly when nothing more matches, so an empty page means there is nothing (more). `GET /api/accounts/count` counts the same filters.',
      ].join('\n\n'),
      tags: ['accounts'],
      querystring: Query,
      response: {
        200: OneBatchOrPage,
        ...problems(400, 401, 404, 429),
      },
    },
    handler: async (request, reply) => {
      const query = request.query;
      if (query.username !== undefined && query.usernames !== undefined) {
        throw new PerchError('bad_request', 'Send either username or usernames, not both.');
      }
      if (query.username !== undefined)
        return sendAccount(
          reply,
          await getAccountAnswer(accounts, accountRef(query.username, query.platform, accounts.config.defaultPlatform)),
        );
      if (query.usernames !== undefined) {
        const names = query.usernames
          .split(',')
          .map((n) => n.trim())
          .filter((n) => n !== '');
        if (names.length === 0 || names.length > MAX_BATCH)
          throw new PerchError('bad_request', `usernames takes 1 to ${MAX_BATCH} names.`);
        return getAccounts(accounts, names, query.platform);
      }
      const sort: AccountSort = query.sort ?? 'username';
      const limit = query.limit ?? 50;
      let after: [string | number, number] | undefined;
      if (query.cursor !== undefined) {
        const [value, id] = decodeCursor(query.cursor, sort, [sort === 'username' ? 'text' : 'int', 'int'] as const);
        after = [value, id];
      }
      const page = await listAccountPage(accounts, query, { sort, limit, after });
      return { data: page.data, nextCursor: page.more && page.last ? encodeCursor([sort, ...page.last]) : null };
    },
  });

  app.get('/api/accounts/count', {
    config: { access: 'app' },
    schema: {
      summary: 'Count matching accounts',
      description:
        'How many tracked accounts match `status`, `platform`, `tag` and `q` (username prefix), the filters of `GET /api/`, exactly. Without `q` it is read from counts kept with every change (at most 14 rows, whatever the number of accounts); with `q` the matches are counted in the username index, one entry each (a one-letter prefix over a million names counts every name it matches).',
      tags: ['accounts'],
      querystring: Type.Object(Filters, { additionalProperties: false }),
      response: {
        200: Type.Object(
          { count: Type.Integer({ minimum: 0, description: 'Tracked accounts matching the filters.' }) },
          { examples: [{ count: 1_180 }] },
        ),
        ...problems(400, 401, 429),
      },
    },
    handler: async (request) => ({ count: await countMatchingAccounts(accounts, request.query) }),
  });

  app.get('/api/accounts/:platform/:username', {
    config: { access: 'app' },
    schema: {
      summary: 'One account',
      description: 'The same record as `GET /api/?username=`, addressed by platform and username.',
      tags: ['accounts'],
      params: Type.Object({ platform: PlatformSchema, username: Type.String({ minLength: 1, maxLength: 300 }) }),
      response: { 200: Type.Ref('Account'), ...problems(400, 401, 404, 429) },
    },
    handler: async (request, reply) => {
      const { platform, username } = request.params;
      return sendAccount(
        reply,
        await getAccountAnswer(accounts, accountRef(username, platform, accounts.config.defaultPlatform)),
      );
    },
  });
}
