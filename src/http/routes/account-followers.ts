// Who follows an account, who followed and who left (DESIGN §11): a JSON page by cursor, or a
// spreadsheet-safe CSV file (like the history export).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { csvRow } from '../../domain/csv-export.ts';
import { PerchError } from '../../domain/errors.ts';
import { followerProfileUrl } from '../../domain/followers.ts';
import type { Platform } from '../../domain/platforms.ts';
import { accountRef } from '../../services/account-refs.ts';
import { followerPage, type FollowerDeps, type FollowerRow, type FollowerState } from '../../services/followers.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import { FollowerSchema } from '../follower-schemas.ts';
import { PlatformSchema, literals, problems } from '../schemas.ts';

const JSON_MAX = 1_000;
const JSON_DEFAULT = 100;
const CSV_MAX = 100_000;
/** Rows read per query while building a CSV. */
const CSV_CHUNK = 10_000;
const CSV_HEADER = ['platform_user_id', 'username', 'url', 'first_seen_at', 'gained_at', 'gone_at'];

const Params = Type.Object({ platform: PlatformSchema, username: Type.String({ minLength: 1, maxLength: 300 }) });
const Query = Type.Object(
  {
    state: Type.Optional(literals(['current', 'gained', 'lost'] as const)),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        maxLength: 64,
        description: 'gained/lost: at or after this time (ISO 8601 date-time with a time zone).',
        examples: ['2026-11-01T00:00:00Z'],
      }),
    ),
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
const Page = Type.Object(
  { data: Type.Array(FollowerSchema), nextCursor: Type.Union([Type.String(), Type.Null()]) },
  {
    examples: [
      {
        data: [
          {
            platformUserId: '783214',
            username: 'twitter',
            url: 'https://x.com/twitter',
            firstSeenAt: '2026-11-23T12:00:04.000Z',
            gainedAt: '2026-11-23T12:00:04.000Z',
            goneAt: null,
          },
        ],
        nextCursor: null,
      },
    ],
  },
);

type After = { at: number; id: string } | { id: string };
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function cursorOf(state: FollowerState, row: FollowerRow): string {
  if (state === 'current') return encodeCursor(['followers-current', row.platformUserId]);
  const at = state === 'gained' ? row.gainedAt : row.goneAt;
  return encodeCursor([`followers-${state}`, at ?? 0, row.platformUserId]);
}

function readCursor(state: FollowerState, cursor: string): After {
  if (state === 'current') return { id: decodeCursor(cursor, 'followers-current', ['text'] as const)[0] };
  const [at, id] = decodeCursor(cursor, `followers-${state}`, ['int', 'text'] as const);
  return { at, id };
}

function sinceOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new PerchError(
      'validation_failed',
      'The request querystring is invalid: since is not a date-time this service can read.',
      { errors: [{ field: 'querystring/since', message: 'must be an ISO 8601 date-time with a time zone' }] },
    );
  return ms;
}

export default async function accountFollowerRoutes(root: FastifyInstance, { followers }: { followers: FollowerDeps }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/api/accounts/:platform/:username/followers', {
    config: { access: 'app' },
    schema: {
      summary: 'Who follows an account, who followed, who left',
      description: [
        '`state=current` (default): the followers found by the last finished pass, in id order. `state=gained` / `state=lost`: who followed / who left, newest first, `since` a time if given. Kept for accounts whose follower list is on (PATCH `followerList`); identities of followers who left are kept FOLLOWER_RETENTION.',
        `JSON (default): \`{ data, nextCursor }\`, \`limit\` 1-${JSON_MAX} (${JSON_DEFAULT}); pass \`nextCursor\` back as \`cursor\`.`,
        `\`format=csv\`: a file with the columns \`${CSV_HEADER.join(',')}\`, CRLF line ends, up to ${CSV_MAX.toLocaleString('en')} rows; more continue through a \`Link: <…>; rel="next"\` header. Text cells a spreadsheet could run as a formula are prefixed with \`'\`.`,
      ].join('\n\n'),
      tags: ['accounts'],
      params: Params,
      querystring: Query,
      response: {
        200: {
          description: 'The page (JSON) or file (CSV).',
          content: { 'application/json': { schema: Page }, 'text/csv': { schema: Type.String() } },
        },
        ...problems(400, 401, 404, 429),
      },
    },
    handler: async (request, reply) => {
      const { platform, username } = request.params;
      const query = request.query;
      const state = query.state ?? 'current';
      const ref = accountRef(username, platform, followers.config.defaultPlatform);
      const csv = query.format === 'csv';
      if (!csv && query.limit !== undefined && query.limit > JSON_MAX)
        throw new PerchError(
          'validation_failed',
          `The request querystring is invalid: limit is 1-${JSON_MAX} for JSON (up to ${CSV_MAX} with format=csv).`,
          { errors: [{ field: 'querystring/limit', message: `must be <= ${JSON_MAX}` }] },
        );
      if (state === 'current' && query.since !== undefined)
        throw new PerchError(
          'validation_failed',
          'The request querystring is invalid: since goes with state=gained or state=lost.',
          {
            errors: [{ field: 'querystring/since', message: 'only with state=gained or state=lost' }],
          },
        );
      const since = sinceOf(query.since);
      let after = query.cursor === undefined ? undefined : readCursor(state, query.cursor);
      const limit = query.limit ?? (csv ? CSV_MAX : JSON_DEFAULT);

      if (!csv) {
        const page = await followerPage(followers, ref, { state, since, limit, after });
        const last = page.rows.at(-1);
        return {
          data: page.rows.map((row) => item(page.platform, row)),
          nextCursor: page.more && last ? cursorOf(state, last) : null,
        };
      }
      const lines = [csvRow(CSV_HEADER)];
      let name = username;
      let more = false;
      let last: FollowerRow | undefined;
      for (let read = 0; read < limit;) {
        const page = await followerPage(followers, ref, {
          state,
          since,
          limit: Math.min(CSV_CHUNK, limit - read),
          after,
        });
        name = page.username;
        for (const row of page.rows) {
          const f = item(page.platform, row);
          lines.push(csvRow([f.platformUserId, f.username, f.url, f.firstSeenAt, f.gainedAt, f.goneAt]));
        }
        read += page.rows.length;
        last = page.rows.at(-1) ?? last;
        more = page.more;
        if (!page.more || !last) break;
        after = readCursor(state, cursorOf(state, last));
      }
      if (more && last) reply.header('link', nextLink(request, cursorOf(state, last)));
      const filename = `${platform}-${name}-followers-${state}.csv`.replace(/[^A-Za-z0-9._-]/g, '_');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .send(lines.join(''));
    },
  });
}

function item(platform: Platform, row: FollowerRow) {
  return {
    platformUserId: row.platformUserId,
    username: row.username,
    url: followerProfileUrl(platform, row.username),
    firstSeenAt: new Date(row.firstSeenAt).toISOString(),
    gainedAt: iso(row.gainedAt),
    goneAt: iso(row.goneAt),
  };
}

/** The request's own URL with `cursor` replaced: the next file of the same export. */
function nextLink(request: FastifyRequest, cursor: string): string {
  const url = new URL(request.url, 'http://localhost');
  url.searchParams.set('cursor', cursor);
  return `<${url.pathname}${url.search}>; rel="next"`;
}
