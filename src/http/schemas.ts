// TypeBox schemas shared by several routes: the problem document, the account record and its analysis.
import {
  Kind,
  Type,
  type Static,
  type TInteger,
  type TNull,
  type TSchema,
  type TString,
  type TUnion,
  type TUnsafe,
} from '@sinclair/typebox';
import { ACCOUNT_STATUSES, type Account } from '../domain/account.ts';
import { PLATFORMS } from '../domain/platforms.ts';

/**
 * `schema` or null, written `type: [T, "null"]` where the schema has one type: the same values as
 * `anyOf: [T, null]`, but the response serializer tells them apart by a typeof check instead of
 * validating the value against T (for the account's analysis, a schema of some fifty fields).
 */
export const nullable = <T extends TSchema>(schema: T): TUnsafe<Static<T> | null> | TUnion<[T, TNull]> =>
  typeof schema.type === 'string'
    ? Type.Unsafe<Static<T> | null>({ ...schema, [Kind]: 'Unsafe', type: [schema.type, 'null'] })
    : Type.Union([schema, Type.Null()]);
/** A string that is one of `values`, as a plain JSON Schema enum (typed, and cheap to validate). */
export const literals = <const T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable machine-readable error code.' }),
    requestId: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  {
    $id: 'Problem',
    additionalProperties: true,
    description: 'RFC 9457 problem document; every error has this shape.',
    examples: [
      {
        type: 'urn:perch:problem:invalid-api-key',
        title: 'Unauthorized',
        status: 401,
        detail: 'The API key is not valid.',
        code: 'invalid_api_key',
        requestId: 'req-1',
      },
    ],
  },
);

export const PlatformSchema = literals(PLATFORMS);

const ProfileSchema = Type.Object({
  displayName: nullable(Type.String()),
  description: nullable(Type.String()),
  location: nullable(Type.String()),
  url: nullable(Type.String()),
  profileImageUrl: nullable(Type.String()),
  verified: nullable(Type.Boolean()),
  protected: nullable(Type.Boolean()),
  createdAt: nullable(Type.String()),
});

const MetricsSchema = Type.Object({
  followers: Type.Integer(),
  following: Type.Integer(),
  posts: Type.Integer(),
  listed: nullable(Type.Integer()),
  observedAt: Type.String(),
});

const Count = <K extends string>(key: K) =>
  Type.Object({ [key]: Type.String(), count: Type.Integer() } as { [P in K]: TString } & { count: TInteger });

/** The account analysis (see domain/analysis.ts for the definition of every figure). */
const AnalysisSchema = Type.Object(
  {
    followers: Type.Object({
      change1d: nullable(
        Type.Integer({
          description: 'Followers now minus the last daily point at or before 1 day ago; null until tracked that long.',
        }),
      ),
      change7d: nullable(Type.Integer()),
      change30d: nullable(Type.Integer()),
      growthRate7d: nullable(Type.Number({ description: 'change7d ÷ followers 7 days ago × 100.' })),
    }),
    activity: Type.Object({
      postsPerDay7d: Type.Number({ description: 'Own posts (not reposts) of the last 7 days ÷ 7.' }),
      lastPostAt: nullable(Type.String()),
      activeHoursUtc: Type.Array(Type.Integer(), {
        minItems: 24,
        maxItems: 24,
        description: 'Own posts of the last 30 days per UTC hour.',
      }),
    }),
    engagement: Type.Object({
      avgLikes: nullable(Type.Number()),
      avgReposts: nullable(Type.Number()),
      avgReplies: nullable(Type.Number()),
      engagementRate: nullable(
        Type.Number({
          description:
            'Mean of (likes + reposts + replies + quotes) ÷ followers × 100 over own posts of the last 30 days.',
        }),
      ),
      postsConsidered: Type.Integer(),
      likesFirst24h: Type.Optional(
        nullable(
          Type.Number({
            description:
              'Mean likes at 24 h of age over the own posts of the last 30 days that were read then (see the posts history); null when none was.',
          }),
        ),
      ),
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
    stale: Type.Boolean({
      description: 'The metrics are older than twice the tracking interval (decided when the record is read).',
    }),
  },
  { description: 'Growth, activity, engagement and content, recomputed after each check; null until the first check.' },
);

export const AccountSchema = Type.Object(
  {
    id: Type.String(),
    platform: PlatformSchema,
    username: Type.String(),
    platformUserId: nullable(Type.String()),
    status: literals(ACCOUNT_STATUSES),
    statusReason: nullable(Type.String()),
    tags: Type.Array(Type.String()),
    note: nullable(Type.String()),
    profile: nullable(ProfileSchema),
    metrics: nullable(MetricsSchema),
    analysis: nullable(AnalysisSchema),
    tracking: Type.Object({
      trackedSince: Type.String(),
      lastCheckedAt: nullable(Type.String()),
      nextCheckAt: nullable(Type.String()),
      consecutiveFailures: Type.Integer(),
      lastError: nullable(Type.String()),
    }),
    renames: Type.Array(Type.Object({ from: Type.String(), to: Type.String(), at: Type.String() })),
  },
  {
    $id: 'Account',
    examples: [
      {
        id: 'acc_1',
        platform: 'x',
        username: 'jack',
        platformUserId: null,
        status: 'pending',
        statusReason: null,
        tags: ['founders'],
        note: null,
        profile: null,
        metrics: null,
        analysis: null,
        tracking: {
          trackedSince: '2026-11-23T12:00:00.000Z',
          lastCheckedAt: null,
          nextCheckAt: '2026-11-23T12:00:00.000Z',
          consecutiveFailures: 0,
          lastError: null,
        },
        renames: [],
      },
    ],
  },
);

// The record the API writes is the domain's Account, member for member: a field added to one and
// not the other (or typed differently) fails the type check here. (Types are identical when a
// function generic over T cannot tell them apart.)
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const accountSchemaIsAccount: Same<Static<typeof AccountSchema>, Account> = true;
void accountSchemaIsAccount;

/** Problem responses a route may give, for its OpenAPI description: application/problem+json. */
export function problems(...statuses: number[]) {
  const problem = {
    description: ProblemSchema.description,
    content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
  };
  return Object.fromEntries(statuses.map((s) => [s, problem])) as Record<number, typeof problem>;
}

/** `/…/:id` of an admin resource (webhooks, alert rules, digests). */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** The answer to deleting an admin resource: `{ success: true, id }`. */
export const Deleted = (exampleId: string) =>
  Type.Object({ success: Type.Literal(true), id: Type.String() }, { examples: [{ success: true, id: exampleId }] });
