// Follower lists in the API (DESIGN §11): an account's list and the cost of a pass, and one follower.
import { Type } from '@sinclair/typebox';
import { literals, nullable } from './schemas.ts';

export const PassCostSchema = Type.Object(
  {
    followers: Type.Integer({ description: 'Followers now (the last check).' }),
    pages: Type.Integer({ description: 'Follower pages one pass reads (X: 1,000 a page; Bluesky: 100).' }),
    usd: Type.Number({ description: 'What one pass costs (X bills each user a page returns; Bluesky is free).' }),
    perMonthUsd: Type.Number({ description: 'At one pass per FOLLOWER_LIST_INTERVAL, over 30 days.' }),
  },
  { description: 'The cost of one full pass over the followers.' },
);

export const FollowerListSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    by: literals(['account', 'platform', 'tag', 'off'] as const),
    overLimit: Type.Boolean({ description: 'Above FOLLOWER_LIST_MAX followers: the list is not kept.' }),
    limit: Type.Integer({ description: 'FOLLOWER_LIST_MAX.' }),
    lastPassAt: nullable(Type.String()),
    nextPassAt: nullable(Type.String()),
    listed: nullable(Type.Integer({ description: 'Followers found by the last finished pass.' })),
    passCost: PassCostSchema,
  },
  {
    examples: [
      {
        enabled: true,
        by: 'account',
        overLimit: false,
        limit: 100_000,
        lastPassAt: null,
        nextPassAt: null,
        listed: null,
        passCost: { followers: 5_400, pages: 6, usd: 54, perMonthUsd: 1_620 },
      },
    ],
  },
);

export const FollowerSchema = Type.Object({
  platformUserId: Type.String(),
  username: Type.String({ description: 'The handle when last seen.' }),
  url: Type.String({ description: 'The profile on its platform.' }),
  firstSeenAt: Type.String({
    description: 'When perch first saw them follow (the first pass for those already there).',
  }),
  gainedAt: nullable(
    Type.String({ description: 'When perch saw them follow; null for those there at the first pass.' }),
  ),
  goneAt: nullable(Type.String({ description: 'When a pass no longer found them; null while they follow.' })),
});
