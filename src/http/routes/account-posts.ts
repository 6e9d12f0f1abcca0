// One account's recent posts with their current metrics (and when they were read), newest first,
// paged by cursor.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listAccountPosts } from '../../services/account-posts.ts';
import { accountRef } from '../../services/account-refs.ts';
import type { ServiceDeps } from '../../services/context.ts';
import { PlatformSchema, nullable, problems } from '../schemas.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';

const Params = Type.Object({ platform: PlatformSchema, username: Type.String({ minLength: 1, maxLength: 300 }) });
const Query = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Posts per page, 1-100 (20).' })),
    cursor: Type.Optional(Type.String({ maxLength: 1_000 })),
  },
  { additionalProperties: false },
);

const Metrics = Type.Object({
  age: Type.Union([
    Type.Literal('1h'),
    Type.Literal('6h'),
    Type.Literal('24h'),
    Type.Literal('72h'),
    Type.Literal('7d'),
  ]),
  observedAt: Type.String(),
  likes: Type.Integer(),
  reposts: Type.Integer(),
  replies: Type.Integer(),
  quotes: Type.Integer(),
});

const Post = Type.Object({
  id: Type.String({ description: "The platform's id of the post (X: numeric id, Bluesky: at:// URI)." }),
  createdAt: Type.String(),
  text: Type.String(),
  url: nullable(Type.String()),
  lang: nullable(Type.String()),
  sentiment: nullable(Type.Number({ description: 'Sentiment score of the text, -1 (negative) to 1 (positive).' })),
  isRepost: Type.Boolean(),
  isReply: Type.Boolean(),
  metrics: Type.Object({
    likes: Type.Integer(),
    reposts: Type.Integer(),
    replies: Type.Integer(),
    quotes: Type.Integer(),
  }),
  metricsObservedAt: Type.String({ description: 'When `metrics` were last read from the platform.' }),
  status: Type.Union([Type.Literal('live'), Type.Literal('deleted'), Type.Literal('hidden')], {
    description:
      '`deleted`: the platform says the post is gone; `hidden`: it withholds it (a protected author, a moderation label). `metrics` are then the last ones read.',
  }),
  statusSince: nullable(Type.String({ description: 'When the post was first found deleted or hidden.' })),
  metricsHistory: Type.Array(Metrics, {
    maxItems: 5,
    description:
      'The metrics at fixed ages (1h, 6h, 24h, 72h, 7d), each read at or shortly after that age; an age is missing when no check fell then.',
  }),
  hashtags: Type.Array(Type.String()),
  mentions: Type.Array(Type.String()),
  domains: Type.Array(Type.String()),
});
const PostsPage = Type.Object(
  { data: Type.Array(Post), nextCursor: nullable(Type.String()) },
  {
    examples: [
      {
        data: [
          {
            id: '1861000000000000000',
            createdAt: '2026-11-23T11:58:00.000Z',
            text: 'Shipping today #launch',
            url: 'https://x.com/jack/status/1861000000000000000',
            lang: 'en',
            sentiment: 0.4,
            isRepost: false,
            isReply: false,
            metrics: { likes: 120, reposts: 14, replies: 9, quotes: 2 },
            metricsObservedAt: '2026-11-24T13:02:00.000Z',
            status: 'live',
            statusSince: null,
            metricsHistory: [
              { age: '1h', observedAt: '2026-11-23T13:02:00.000Z', likes: 31, reposts: 4, replies: 2, quotes: 0 },
              { age: '24h', observedAt: '2026-11-24T12:02:00.000Z', likes: 118, reposts: 14, replies: 9, quotes: 2 },
            ],
            hashtags: ['launch'],
            mentions: [],
            domains: [],
          },
        ],
        nextCursor: null,
      },
    ],
  },
);

export default async function accountPostsRoutes(root: FastifyInstance, { accounts }: { accounts: ServiceDeps }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/api/accounts/:platform/:username/posts', {
    config: { access: 'app' },
    schema: {
      summary: 'Recent posts of an account',
      description:
        'The posts the tracker has stored (the newest ones, capped per account), newest first, with their metrics and entities. ' +
        'How fresh `metrics` are: the tracker reads them again at each check of the account (every `TRACK_INTERVAL`, 1 h by default) for the 100 newest own posts younger than `POST_REFRESH_WINDOW` (7 d), and once more just past that age; ' +
        '`metricsObservedAt` says when they were read. Older posts and reposts of others keep the numbers of their last read. `limit` 1-100 (20); pass `nextCursor` back as `cursor`.',
      tags: ['accounts'],
      params: Params,
      querystring: Query,
      response: { 200: PostsPage, ...problems(400, 401, 404, 429) },
    },
    handler: async (request) => {
      const { platform, username } = request.params;
      const ref = accountRef(username, platform, accounts.config.defaultPlatform);
      const before =
        request.query.cursor === undefined
          ? undefined
          : decodeCursor(request.query.cursor, 'posts', ['int', 'text'] as const);
      const page = await listAccountPosts(accounts, ref, request.query.limit ?? 20, before);
      return { data: page.data, nextCursor: page.more && page.last ? encodeCursor(['posts', ...page.last]) : null };
    },
  });
}
