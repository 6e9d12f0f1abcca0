// The alert routes' request and response shapes, with the examples the OpenAPI document shows.
// Bodies are typed loosely here on purpose: services/alerts.ts checks a rule field by field
// (domain/alert-rules.ts) and names every bad field in one 400, the same for API, dashboard and CLI.
import { Type } from '@sinclair/typebox';
import { nullable } from './schemas.ts';

const Condition = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'One of `{"above": n}`, `{"below": n}`, `{"changePercent": p, "windowHours": h}` (p < 0 for a fall), `{"anomaly": {"sensitivity": 1-5}}` (the day\'s change as a z-score against the last 30 days\' daily changes; 5 fires earliest), `{"quietDays": d}` (no post for d days; metric posts).',
  },
);
const Scope = Type.Object(
  {
    tags: Type.Optional(Type.Array(Type.String())),
    platform: Type.Optional(Type.String()),
    accounts: Type.Optional(Type.Array(Type.String({ description: 'Account ids such as acc_12.' }))),
  },
  {
    additionalProperties: true,
    description: 'Every dimension given must match: one of the tags, the platform, one of the accounts.',
  },
);
const fields = {
  name: Type.String(),
  scope: Scope,
  metric: Type.String({ description: 'followers, following, posts or engagementRate.' }),
  condition: Condition,
  cooldown: Type.String({ description: 'At most one firing per account within it, such as "24h" (the default).' }),
  recipients: Type.Array(Type.String(), { description: 'E-mail addresses told of each firing.' }),
  enabled: Type.Boolean(),
};

export const example = {
  id: 'alr_7k2m9x0q1w9e7r4t6y3u',
  name: 'Big jumps',
  scope: { tags: ['news'] },
  metric: 'followers',
  condition: { changePercent: 10, windowHours: 24 },
  cooldown: '24h',
  recipients: ['desk@example.com'],
  enabled: true,
  createdAt: '2026-12-03T09:00:00.000Z',
  updatedAt: '2026-12-03T09:00:00.000Z',
};

export const NewAlertRule = Type.Object(
  {
    name: fields.name,
    scope: Type.Optional(fields.scope),
    metric: fields.metric,
    condition: fields.condition,
    cooldown: Type.Optional(fields.cooldown),
    recipients: Type.Optional(fields.recipients),
    enabled: Type.Optional(fields.enabled),
  },
  {
    additionalProperties: true,
    examples: [
      {
        name: 'Big jumps',
        scope: { tags: ['news'] },
        metric: 'followers',
        condition: { changePercent: 10, windowHours: 24 },
      },
    ],
  },
);

export const AlertRuleChange = Type.Partial(Type.Object(fields), {
  additionalProperties: true,
  minProperties: 1,
  examples: [{ condition: { anomaly: { sensitivity: 4 } }, cooldown: '12h' }],
});

export const AlertRuleView = Type.Object(
  {
    id: Type.String(),
    ...fields,
    scope: Type.Object({
      tags: Type.Optional(Type.Array(Type.String())),
      platform: Type.Optional(Type.String()),
      accounts: Type.Optional(Type.Array(Type.String())),
    }),
    condition: Type.Unknown({ description: Condition.description }),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    problem: Type.Optional(
      Type.Object(
        { unreadable: Type.Array(Type.String()), detail: Type.String() },
        {
          description:
            'Only for a rule whose stored fields cannot be read (a hand-edited store): checks skip it until a change sends those fields.',
        },
      ),
    ),
  },
  { examples: [example] },
);

export const Firing = Type.Object({
  account: Type.Object({ id: Type.String(), platform: nullable(Type.String()), username: nullable(Type.String()) }),
  firedAt: Type.String({ description: 'The latest firing for this account.' }),
  count: Type.Integer({ description: 'How often the rule fired for this account.' }),
  value: nullable(Type.Number()),
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'What the last firing said (its event data).' }),
});

export const firingExample = {
  account: { id: 'acc_42', platform: 'x', username: 'jack' },
  firedAt: '2026-12-03T10:00:00.000Z',
  count: 2,
  value: 11_250,
  data: { metric: 'followers', value: 11_250, threshold: 10, baseline: 10_000, windowHours: 24, changePercent: 12.5 },
};

export { IdParams as Id } from './schemas.ts';
