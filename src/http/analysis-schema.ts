// The account analysis as the API documents and serialises it (see domain/analysis.ts for the
// definitions of every figure).
import { Type, type TSchema } from '@sinclair/typebox';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Count = <K extends string>(key: K) => Type.Object({ [key]: Type.String(), count: Type.Integer() } as Record<K, TSchema> & { count: TSchema });

export const AnalysisSchema = Type.Object(
  {
    followers: Type.Object({
      change1d: nullable(Type.Integer({ description: 'Followers now minus the last daily point at or before 1 day ago; null until tracked that long.' })),
      change7d: nullable(Type.Integer()),
      change30d: nullable(Type.Integer()),
      growthRate7d: nullable(Type.Number({ description: 'change7d ÷ followers 7 days ago × 100.' })),
    }),
    activity: Type.Object({
      postsPerDay7d: Type.Number({ description: 'Own posts (not reposts) of the last 7 days ÷ 7.' }),
      lastPostAt: nullable(Type.String()),
      activeHoursUtc: Type.Array(Type.Integer(), { minItems: 24, maxItems: 24, description: 'Own posts of the last 30 days per UTC hour.' }),
    }),
    engagement: Type.Object({
      avgLikes: nullable(Type.Number()),
      avgReposts: nullable(Type.Number()),
      avgReplies: nullable(Type.Number()),
      engagementRate: nullable(Type.Number({ description: 'Mean of (likes + reposts + replies + quotes) ÷ followers × 100 over own posts of the last 30 days.' })),
      postsConsidered: Type.Integer(),
    }),
    content: Type.Object({
      topHashtags: Type.Array(Count('tag')),
      topMentions: Type.Array(Count('username')),
      topDomains: Type.Array(Count('domain')),
      languages: Type.Array(Type.Object({ lang: Type.String(), share: Type.Number() })),
      sentiment: Type.Object({
        mean: nullable(Type.Number({ description: 'Mean score in [-1, 1] of the scored posts (English ones).' })),
        positiveShare: nullable(Type.Number()),
        negativeShare: nullable(Type.Number()),
        postsScored: Type.Integer(),
      }),
    }),
    topPosts: Type.Array(
      Type.Object({
        id: Type.String(),
        createdAt: Type.String(),
        url: nullable(Type.String()),
        text: Type.String(),
        likes: Type.Integer(),
        reposts: Type.Integer(),
        replies: Type.Integer(),
        quotes: Type.Integer(),
        score: Type.Integer({ description: '5·replies + 3·reposts + 2·likes.' }),
      }),
      { description: 'The 5 best own posts of the last 30 days.' },
    ),
    computedAt: Type.String(),
    stale: Type.Boolean({ description: 'The metrics are older than twice the tracking interval (decided when the record is read).' }),
  },
  { description: 'Growth, activity, engagement and content, recomputed after each check; null until the first check.' },
);
