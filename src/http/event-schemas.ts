// The event document and the `data` of each event type, as OpenAPI components (domain/events.ts
// decides when each is written).
import { Type, type TSchema } from '@sinclair/typebox';
import { EVENT_TYPES } from '../domain/events.ts';
import { literals, nullable, PlatformSchema } from './schemas.ts';

const EventAccount = Type.Object(
  { id: Type.String(), platform: PlatformSchema, username: Type.String(), platformUserId: nullable(Type.String()) },
  { description: 'The account the event is about, as it is after the change.' },
);
const account = { account: EventAccount };
const FollowerIdentity = Type.Object({ platformUserId: Type.String(), username: Type.String() });
const example = { id: 'acc_42', platform: 'x', username: 'jack', platformUserId: '12' };

const DATA: Record<(typeof EVENT_TYPES)[number], TSchema> = {
  'account.checked_first': Type.Object(
    { ...account, status: Type.String() },
    { examples: [{ account: example, status: 'active' }] },
  ),
  'account.status_changed': Type.Object(
    { ...account, from: Type.String(), to: Type.String(), reason: nullable(Type.String()) },
    { examples: [{ account: example, from: 'active', to: 'suspended', reason: 'User has been suspended' }] },
  ),
  'account.renamed': Type.Object(
    { ...account, from: Type.String(), to: Type.String() },
    { examples: [{ account: { ...example, username: 'jack2' }, from: 'jack', to: 'jack2' }] },
  ),
  'account.followers_milestone': Type.Object(
    { ...account, milestone: Type.Integer(), followers: Type.Integer() },
    { examples: [{ account: example, milestone: 10_000, followers: 10_012 }] },
  ),
  'account.followers_spike': Type.Object(
    {
      ...account,
      change: Type.Integer({ description: 'Followers now minus then (negative for a fall).' }),
      percent: Type.Number(),
      windowHours: Type.Number(),
      followers: Type.Integer(),
    },
    { examples: [{ account: example, change: 1_250, percent: 12.5, windowHours: 6, followers: 11_250 }] },
  ),
  'account.followers_changed': Type.Object(
    {
      ...account,
      gained: Type.Array(FollowerIdentity, { maxItems: 100, description: 'Who followed (at most 100).' }),
      lost: Type.Array(FollowerIdentity, { maxItems: 100, description: 'Who left (at most 100).' }),
      gainedCount: Type.Integer(),
      lostCount: Type.Integer(),
      via: literals(['poll', 'stream'] as const),
    },
    {
      examples: [
        {
          account: example,
          gained: [{ platformUserId: '783214', username: 'twitter' }],
          lost: [],
          gainedCount: 1,
          lostCount: 0,
          via: 'poll',
        },
      ],
    },
  ),
  'account.posted': Type.Object(
    {
      ...account,
      post: Type.Object({
        id: Type.String({ description: 'The platform id of the post (X: tweet id; Bluesky: at:// URI).' }),
        url: nullable(Type.String()),
        createdAt: Type.String(),
        text: Type.String({ maxLength: 300, description: 'The text, cut to 300 characters.' }),
        via: literals(['stream', 'poll'] as const),
      }),
    },
    {
      examples: [
        {
          account: { ...example, platform: 'bluesky', platformUserId: 'did:plc:z72i7hdynmk6r22z27h6tvur' },
          post: {
            id: 'at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.post/3l6oveex3ii2l',
            url: 'https://bsky.app/profile/jack.bsky.social/post/3l6oveex3ii2l',
            createdAt: '2026-11-23T12:00:00.000Z',
            text: 'hello',
            via: 'stream',
          },
        },
      ],
    },
  ),
  'post.deleted': Type.Object(
    { ...account, postId: Type.String() },
    { examples: [{ account: example, postId: '1460323737035677698' }] },
  ),
  'import.completed': Type.Object(
    {
      importId: Type.String(),
      received: Type.Integer(),
      accepted: Type.Integer(),
      inserted: Type.Integer(),
      reactivated: Type.Integer(),
      alreadyTracked: Type.Integer(),
      duplicates: Type.Integer(),
      rejectedCount: Type.Integer(),
    },
    {
      examples: [
        {
          importId: 'imp_0k3j5m2x8q1w9e7r4t6y',
          received: 5,
          accepted: 4,
          inserted: 4,
          reactivated: 0,
          alreadyTracked: 0,
          duplicates: 0,
          rejectedCount: 1,
        },
      ],
    },
  ),
  'webhook.test': Type.Object(
    { webhookId: Type.String(), message: Type.String() },
    { examples: [{ webhookId: 'wh_4f9x2k', message: 'This is a test event from perch.' }] },
  ),
  'alert.triggered': Type.Object(
    {
      ...account,
      rule: Type.Object({ id: Type.String(), name: Type.String() }),
      metric: Type.String({ description: 'followers, following, posts or engagementRate.' }),
      value: Type.Number({ description: 'The metric now (days without a post for quietDays).' }),
      condition: Type.Unknown({ description: "The rule's condition as it was defined." }),
      threshold: Type.Optional(Type.Number({ description: 'The level or percentage the condition names.' })),
      baseline: Type.Optional(
        Type.Number({
          description: 'What the value is compared with: the value a window ago, or the mean daily change.',
        }),
      ),
      windowHours: Type.Optional(Type.Number()),
      change: Type.Optional(Type.Number()),
      changePercent: Type.Optional(Type.Number()),
      zScore: Type.Optional(Type.Number({ description: "anomaly: the day's change in standard deviations." })),
    },
    {
      examples: [
        {
          account: example,
          rule: { id: 'alr_7k2m9x0q1w9e7r4t6y3u', name: 'Big jumps' },
          metric: 'followers',
          value: 11_250,
          condition: { changePercent: 10, windowHours: 24 },
          threshold: 10,
          baseline: 10_000,
          windowHours: 24,
          change: 1_250,
          changePercent: 12.5,
        },
      ],
    },
  ),
};

/** One component per event type, named like `Event.account.renamed`, listing its `data`. */
export const EVENT_DATA_SCHEMAS = Object.entries(DATA).map(([type, data]) =>
  Type.Object(
    { id: Type.String(), type: Type.Literal(type), createdAt: Type.String(), data },
    { $id: `Event.${type}`, description: `The \`${type}\` event.` },
  ),
);

export const EventSchema = Type.Object(
  {
    id: Type.String({ description: 'evt_…: the same in the API, the stream and the webhook-id header.' }),
    type: literals(EVENT_TYPES),
    createdAt: Type.String(),
    data: Type.Object(
      {},
      { additionalProperties: true, description: 'Depends on the type: see the Event.<type> schemas.' },
    ),
  },
  {
    $id: 'Event',
    examples: [
      {
        id: 'evt_2m4k8x0q1w9e7r4t6y3u',
        type: 'account.status_changed',
        createdAt: '2026-11-23T12:00:00.000Z',
        data: { account: example, from: 'active', to: 'suspended', reason: 'User has been suspended' },
      },
    ],
  },
);
