// One account's metrics history: a JSON time series paged by cursor, or a CSV export for spreadsheets.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { csvRow } from '../../domain/csv-export.ts';
import { PerchError } from '../../domain/errors.ts';
import { formatDuration } from '../../domain/units.ts';
import { historyExport, historyPage, type HistoryPoint } from '../../services/account-history.ts';
import { accountRef } from '../../services/account-refs.ts';
import type { ServiceDeps } from '../../services/context.ts';
import { PlatformSchema, literals, problems } from '../schemas.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';

const JSON_MAX = 1_000;
const JSON_DEFAULT = 500;
/** A CSV export is one file of up to this many rows; a longer range continues through `Link: rel="next"`. */
const CSV_MAX = 100_000;
/** Rows read per query while building a CSV, so a large export never holds the store in one statement. */
const CSV_CHUNK = 10_000;
const CSV_HEADER = ['observed_at', 'username', 'display_name', 'followers', 'following', 'posts', 'listed'];

const Params = Type.Object({ platform: PlatformSchema, username: Type.String({ minLength: 1, maxLength: 300 }) });
const Instant = (description: string) =>
  Type.String({ format: 'date-time', maxLength: 64, description, examples: ['2026-11-01T00:00:00Z'] });
const Query = Type.Object(
  {
    from: Type.Optional(Instant('Earliest observation, inclusive (ISO 8601 date-time with a time zone).')),
    to: Type.Optional(Instant('Latest observation, inclusive (ISO 8601 date-time with a time zone).')),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CSV_MAX,
        description: `JSON: 1-${JSON_MAX} (${JSON_DEFAULT}). CSV: 1-${CSV_MAX} (${CSV_MAX}).`,
      }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 1_000 })),
    format: Type.Optional(literals(['json', 'csv'] as const)),
  },
  { additionalProperties: false },
);

const Point = Type.Object({
  at: Type.String({ description: 'When the metrics were observed.' }),
  followers: Type.Integer(),
  following: Type.Integer(),
  posts: Type.Integer(),
  listed: Type.Union([Type.Integer(), Type.Null()]),
});
const HistoryPage = Type.Object(
  {
    data: Type.Array(Point),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
    bucket: Type.String({
      description: 'Width of a history bucket: at most one snapshot per bucket, the latest check in it.',
    }),
  },
  {
    examples: [
      {
        data: [{ at: '2026-11-23T12:00:04.000Z', followers: 1200, following: 310, posts: 5400, listed: 12 }],
        nextCursor: null,
        bucket: '1h',
      },
    ],
  },
);

/** Epoch ms of a query time; the schema has checked the format, this catches what Date cannot represent. */
function instant(field: 'from' | 'to', value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new PerchError(
      'validation_failed',
      `The request querystring is invalid: ${field} is not a date-time this service can read.`,
      {
        errors: [{ field: `querystring/${field}`, message: 'must be an ISO 8601 date-time with a time zone' }],
      },
    );
  }
  return ms;
}

/** The request's own URL with `cursor` replaced: the next page of the same export. */
function nextLink(request: FastifyRequest, cursor: string): string {
  const url = new URL(request.url, 'http://localhost');
  url.searchParams.set('cursor', cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}

const point = (p: HistoryPoint) => ({
  at: new Date(p.observedAt).toISOString(),
  followers: p.followers,
  following: p.following,
  posts: p.posts,
  listed: p.listed,
});

export default async function accountHistoryRoutes(
  root: FastifyInstance,
  { accounts, historyBucketMs }: { accounts: ServiceDeps; historyBucketMs: number },
) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const bucket = formatDuration(historyBucketMs);

  app.get('/api/accounts/:platform/:username/history', {
    config: { access: 'app' },
    schema: {
      summary: 'Metrics history of an account',
      description: [
        `One snapshot per ${bucket} bucket (the latest check in it), oldest first, filtered by \`from\` and \`to\` (inclusive ISO 8601 date-times with a time zone).`,
        `JSON (default): \`{ data, nextCursor, bucket }\`, \`limit\` 1-${JSON_MAX} (${JSON_DEFAULT}); pass \`nextCursor\` back as \`cursor\`.`,
        `\`format=csv\`: a file download with the columns \`${CSV_HEADER.join(',')}\` (the current username and display name on every row), CRLF line ends. One file holds up to ${CSV_MAX.toLocaleString('en')} rows (\`limit\`, default and maximum ${CSV_MAX.toLocaleString('en')}); when the range holds more, a \`Link: <…>; rel="next"\` header gives the URL of the next file. Text cells that a spreadsheet could run as a formula (starting with \`=\`, \`+\`, \`-\`, \`@\`, tab or CR) are prefixed with \`'\`.`,
      ].join('\n\n'),
      tags: ['accounts'],
      params: Params,
      querystring: Query,
      response: {
        200: {
          description: 'The history page (JSON) or file (CSV).',
          content: { 'application/json': { schema: HistoryPage }, 'text/csv': { schema: Type.String() } },
        },
        ...problems(400, 401, 404, 429),
      },
    },
    handler: async (request, reply) => {
      const { platform, username } = request.params;
      const query = request.query;
      const ref = accountRef(username, platform, accounts.config.defaultPlatform);
      const from = instant('from', query.from);
      const to = instant('to', query.to);
      if (from !== undefined && to !== undefined && from > to) {
        throw new PerchError(
          'invalid_time_range',
          `from (${query.from}) is after to (${query.to}); swap them or leave one out.`,
        );
      }
      const csv = query.format === 'csv';
      if (!csv && query.limit !== undefined && query.limit > JSON_MAX) {
        throw new PerchError(
          'validation_failed',
          `The request querystring is invalid: limit is 1-${JSON_MAX} for JSON (up to ${CSV_MAX} with format=csv).`,
          {
            errors: [{ field: 'querystring/limit', message: `must be <= ${JSON_MAX}` }],
          },
        );
      }
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'history', ['int'] as const)[0];
      const range = {
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        ...(after !== undefined ? { after } : {}),
      };

      if (!csv) {
        const page = await historyPage(accounts, ref, range, query.limit ?? JSON_DEFAULT);
        const last = page.points.at(-1);
        return {
          data: page.points.map(point),
          nextCursor: page.more && last ? encodeCursor(['history', last.bucket]) : null,
          bucket,
        };
      }

      const account = await historyExport(accounts, ref, range, query.limit ?? CSV_MAX, CSV_CHUNK);
      const lines = [csvRow(CSV_HEADER)];
      for (const p of account.points)
        lines.push(
          csvRow([
            new Date(p.observedAt).toISOString(),
            account.username,
            account.displayName,
            p.followers,
            p.following,
            p.posts,
            p.listed,
          ]),
        );
      const end = account.points.at(-1)?.bucket ?? after;
      if (account.more && end !== undefined) reply.header('link', nextLink(request, encodeCursor(['history', end])));
      const filename = `${account.platform}-${account.username}-history.csv`.replace(/[^A-Za-z0-9._-]/g, '_');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(lines.join(''));
    },
  });
}
