// The digest routes' schemas (routes/digests.ts): a digest as the API shows it, the loose body the
// domain checks field by field, a preview, a period sent, and one attempt of the mail log.
import { Type } from '@sinclair/typebox';
import { nullable } from './schemas.ts';

export { IdParams as Id } from './schemas.ts';
export const Scope = Type.Object(
  {
    tags: Type.Optional(Type.Array(Type.String())),
    platform: Type.Optional(Type.String()),
    accounts: Type.Optional(Type.Array(Type.String(), { description: 'Account ids such as acc_12.' })),
  },
  { description: 'Which accounts: every given dimension must match; none: every tracked account.' },
);
export const example = {
  id: 'dgst_4k2j9x0c1v8b7n6m5l4k',
  name: 'Morning digest',
  scope: { tags: ['press'] },
  schedule: 'daily' as const,
  at: '08:00',
  timeZone: 'Europe/Paris',
  recipients: ['desk@example.com'],
  nextSendAt: '2026-11-24T07:00:00.000Z',
  createdAt: '2026-11-23T12:00:00.000Z',
  updatedAt: '2026-11-23T12:00:00.000Z',
};
export const DigestView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scope: Scope,
    schedule: Type.Union([Type.Literal('daily'), Type.Literal('weekly')], { description: 'weekly: on Mondays.' }),
    at: Type.String({ description: 'Local time, HH:MM.' }),
    timeZone: Type.String({ description: 'IANA time zone; sends follow its DST changes.' }),
    recipients: Type.Array(Type.String()),
    nextSendAt: nullable(Type.String({ description: 'null while mail is off (no SMTP_URL): previews only.' })),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { examples: [example] },
);
// Loose on purpose: the domain names each bad field (an unknown time zone, a bad address) itself.
export const Body = Type.Object(
  {
    name: Type.Optional(Type.Unknown()),
    scope: Type.Optional(Type.Unknown()),
    schedule: Type.Optional(Type.Unknown()),
    at: Type.Optional(Type.Unknown()),
    timeZone: Type.Optional(Type.Unknown()),
    recipients: Type.Optional(Type.Unknown()),
  },
  {
    additionalProperties: true,
    description:
      '{ name, scope: { tags?, platform?, accounts? }, schedule: daily|weekly, at: "08:00", timeZone, recipients }',
    examples: [
      {
        name: 'Morning digest',
        scope: { tags: ['press'] },
        schedule: 'daily',
        at: '08:00',
        timeZone: 'Europe/Paris',
        recipients: ['desk@example.com'],
      },
    ],
  },
);
export const Preview = Type.Object(
  {
    subject: Type.String(),
    html: Type.String(),
    text: Type.String(),
    periodStart: Type.String(),
    periodEnd: Type.String(),
    late: Type.Boolean(),
  },
  {
    examples: [
      {
        subject: 'Morning digest: Mon 23 Nov 2026 08:00 – Tue 24 Nov 2026 08:00 (Europe/Paris)',
        html: '<!doctype html>…',
        text: 'Morning digest…',
        periodStart: '2026-11-23T07:00:00.000Z',
        periodEnd: '2026-11-24T07:00:00.000Z',
        late: false,
      },
    ],
  },
);
export const Send = Type.Object(
  {
    periodStart: Type.String(),
    periodEnd: Type.String(),
    claimedAt: Type.String(),
    late: Type.Boolean(),
    mailId: nullable(Type.Integer({ description: 'The message in the mail log; null without recipients.' })),
  },
  {
    examples: [
      {
        periodStart: '2026-11-23T07:00:00.000Z',
        periodEnd: '2026-11-24T07:00:00.000Z',
        claimedAt: '2026-11-24T07:00:02.000Z',
        late: false,
        mailId: 1,
      },
    ],
  },
);
export const MailAttempt = Type.Object(
  {
    id: Type.Integer(),
    mailId: Type.Integer(),
    kind: Type.String({ description: 'digest or alert' }),
    subject: Type.String(),
    to: Type.Array(Type.String()),
    attempt: Type.Integer(),
    at: Type.String(),
    durationMs: Type.Integer(),
    outcome: Type.String({ description: 'sent, retry or failed' }),
    response: nullable(Type.String({ description: "The server's reply when it took the message." })),
    error: nullable(Type.String()),
    nextRetryAt: nullable(Type.String()),
  },
  {
    examples: [
      {
        id: 1,
        mailId: 1,
        kind: 'digest',
        subject: 'Morning digest: …',
        to: ['desk@example.com'],
        attempt: 1,
        at: '2026-11-24T07:00:03.000Z',
        durationMs: 120,
        outcome: 'sent',
        response: '250 OK: queued',
        error: null,
        nextRetryAt: null,
      },
    ],
  },
);
