// What the platforms billed, day by day: the spend ledger as JSON or as a CSV download (admins).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PerchError } from '../../domain/errors.ts';
import { daysBetween, utcDay } from '../../domain/spend.ts';
import { rateCard, usageCsv, usageHistory } from '../../services/spend.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Store } from '../../services/context.ts';
import { PlatformSchema, literals, problems } from '../schemas.ts';

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;
const Day = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description, examples: ['2026-11-01'] });

const UsageDay = Type.Object({
  day: Type.String(),
  platform: Type.String(),
  kind: Type.String({ description: 'users or posts' }),
  resources: Type.Integer({
    description: 'Resources returned that the platform bills (after same-UTC-day deduplication).',
  }),
  usd: Type.Number({ description: 'What they cost at the rate card (0 on Bluesky).' }),
});

export default async function usageRoutes(root: FastifyInstance, deps: { store: Store; clock: Clock; config: Config }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/api/admin/usage', {
    config: { access: 'admin' },
    schema: {
      summary: 'Platform usage and spend',
      description:
        "The spend ledger per UTC day, platform and kind of resource (users, posts): what was returned, after X's same-day deduplication, and what it cost at the rate card. Default range: the last 30 days through today (UTC); at most 366 days. `format=csv` (or `Accept: text/csv`) downloads the same rows as CSV: `day,platform,kind,resources,usd`.",
      tags: ['accounts'],
      querystring: Type.Object(
        {
          from: Type.Optional(Day('First UTC day, inclusive (YYYY-MM-DD).')),
          to: Type.Optional(Day('Last UTC day, inclusive (YYYY-MM-DD).')),
          platform: Type.Optional(PlatformSchema),
          format: Type.Optional(literals(['json', 'csv'] as const)),
        },
        { additionalProperties: false },
      ),
      response: {
        200: {
          content: {
            'application/json': {
              schema: Type.Object(
                {
                  from: Type.String(),
                  to: Type.String(),
                  rateCard: Type.Object({ userUsd: Type.Number(), postUsd: Type.Number() }),
                  days: Type.Array(UsageDay),
                  totalUsd: Type.Number(),
                },
                {
                  examples: [
                    {
                      from: '2026-11-01',
                      to: '2026-11-23',
                      rateCard: { userUsd: 0.01, postUsd: 0.005 },
                      days: [
                        { day: '2026-11-23', platform: 'x', kind: 'posts', resources: 20, usd: 0.1 },
                        { day: '2026-11-23', platform: 'x', kind: 'users', resources: 50, usd: 0.5 },
                      ],
                      totalUsd: 0.6,
                    },
                  ],
                },
              ),
            },
            'text/csv': { schema: Type.String() },
          },
        },
        ...problems(400, 401, 403, 429),
      },
    },
    handler: async (request, reply) => {
      const { query } = request;
      const today = utcDay(deps.clock.now());
      const to = query.to ?? today;
      const from = query.from ?? utcDay(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS);
      for (const [name, value] of [
        ['from', from],
        ['to', to],
      ] as const)
        if (Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || utcDay(Date.parse(`${value}T00:00:00Z`)) !== value)
          throw new PerchError(
            'validation_failed',
            `${name} (${value}) is not a calendar day; write it as YYYY-MM-DD.`,
            {
              errors: [{ field: `querystring/${name}`, message: 'must be a calendar day (YYYY-MM-DD)' }],
            },
          );
      if (from > to) throw new PerchError('invalid_time_range', `from (${from}) is after to (${to}); swap them.`);
      if (daysBetween(from, to).length > MAX_DAYS)
        throw new PerchError('invalid_time_range', `from ${from} to ${to} is over ${MAX_DAYS} days; ask for less.`);
      const days = await usageHistory(deps.store, { from, to, platform: query.platform });
      const csv =
        query.format === 'csv' || (query.format === undefined && /\btext\/csv\b/.test(request.headers.accept ?? ''));
      if (csv)
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="perch-usage-${from}-to-${to}.csv"`)
          .send(usageCsv(days));
      const totalMicros = days.reduce((sum, d) => sum + Math.round(d.usd * 1_000_000), 0);
      return { from, to, rateCard: rateCard(deps.config), days, totalUsd: totalMicros / 1_000_000 };
    },
  });
}
