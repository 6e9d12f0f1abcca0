// TypeBox schemas shared by several routes: the problem document and the account record.
import { Type, type TSchema } from '@sinclair/typebox';
import { ACCOUNT_STATUSES } from '../domain/account.ts';
import { PLATFORMS } from '../domain/platforms.ts';
import { AnalysisSchema } from './analysis-schema.ts';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** A string that is one of `values`, as a plain JSON Schema enum (typed, and cheap to validate). */
export const literals = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

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
    examples: [{ type: 'urn:perch:problem:invalid-api-key', title: 'Unauthorized', status: 401, detail: 'The API key is not valid.', code: 'invalid_api_key', requestId: 'req-1' }],
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
        tracking: { trackedSince: '2026-11-23T12:00:00.000Z', lastCheckedAt: null, nextCheckAt: '2026-11-23T12:00:00.000Z', consecutiveFailures: 0, lastError: null },
        renames: [],
      },
    ],
  },
);

/** Problem responses a route may give, for its OpenAPI description. */
export function problems(...statuses: number[]): Record<number, { $ref: string }> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('Problem')]));
}
