// The webhook routes' request and response shapes, with the examples the OpenAPI document shows.
import { Type } from '@sinclair/typebox';
import { TAG_PATTERN } from '../domain/account.ts';
import { EVENT_TYPES } from '../domain/events.ts';
import { literals, nullable } from './schemas.ts';

export const Types = Type.Array(literals(['*', ...EVENT_TYPES]), {
  minItems: 1,
  maxItems: EVENT_TYPES.length + 1,
  description: 'Event types, or ["*"] for all.',
});
export const Tags = Type.Array(Type.String({ pattern: TAG_PATTERN.source, maxLength: 64 }), {
  maxItems: 50,
  description: 'Only events about accounts with one of these tags (and no event without an account).',
});
export const Url = Type.String({
  minLength: 1,
  maxLength: 2_000,
  description: 'http or https; private addresses are refused unless WEBHOOK_ALLOW_PRIVATE=true.',
});
export const Description = Type.String({ maxLength: 500 });
export { IdParams as Id } from './schemas.ts';

export const example = {
  id: 'wh_4f9x2k0q1w9e7r4t6y3u',
  url: 'https://hooks.example.com/perch',
  events: ['account.status_changed', 'account.renamed'],
  tags: [],
  description: 'status desk',
  enabled: true,
  disabledReason: null,
  previousSecretUntil: null,
  createdAt: '2026-11-23T12:00:00.000Z',
  updatedAt: '2026-11-23T12:00:00.000Z',
};
export const WebhookView = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    tags: Type.Array(Type.String()),
    description: nullable(Type.String()),
    enabled: Type.Boolean(),
    disabledReason: nullable(Type.String({ description: 'Why perch disabled it: a 410, or 5 days of failures.' })),
    previousSecretUntil: nullable(
      Type.String({ description: 'After a rotation: until when the old secret signs too.' }),
    ),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { examples: [example] },
);
export const secretExample = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
export const Attempt = Type.Object({
  eventId: Type.String(),
  eventType: Type.String(),
  attempt: Type.Integer({ description: '1 for the first try.' }),
  at: Type.String(),
  statusCode: nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: nullable(Type.String()),
  nextRetryAt: nullable(Type.String({ description: 'When it is tried again; null when delivered or given up.' })),
});
