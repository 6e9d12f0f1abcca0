// POST /api/admin/insert: register usernames to track, from CSV sent in any of four forms.
import { createHash, type Hash } from 'node:crypto';
import type { SwaggerTransform } from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { utf8Chunks } from '../../domain/csv-stream.ts';
import type { TrackerView } from '../../domain/tracker-status.ts';
import { parseLargeJsonOffThread } from '../json-off-thread.ts';
import { importAccounts, type ImportDeps } from '../../services/import-accounts.ts';
import { actorOf } from '../auth.ts';
import { acceptCsvUploads, readCsvUpload } from '../csv-upload.ts';
import { onceOf } from '../idempotency.ts';
import { problems } from '../schemas.ts';
/** Long imports log their progress every this many rows. */
const PROGRESS_EVERY = 100_000;

const Rejection = Type.Object({
  line: Type.Integer(),
  value: Type.String(),
  code: Type.String(),
  reason: Type.String(),
});
const Report = Type.Object(
  {
    success: Type.Literal(true),
    importId: Type.String(),
    received: Type.Integer({ description: 'Data rows in the file (header and blank lines excluded).' }),
    accepted: Type.Integer({ description: 'Distinct valid usernames: inserted + reactivated + alreadyTracked.' }),
    inserted: Type.Integer(),
    reactivated: Type.Integer({ description: 'Accounts whose tracking had been stopped and now resumes.' }),
    alreadyTracked: Type.Integer(),
    duplicates: Type.Integer({ description: 'Repeats of a username earlier in the same file.' }),
    rejected: Type.Array(Rejection, { description: 'At most 1,000 rejected rows, with 1-based line numbers.' }),
    rejectedCount: Type.Integer(),
    rejectedTruncated: Type.Boolean(),
    warnings: Type.Array(Type.String()),
    estimate: Type.Optional(
      Type.Object(
        {
          rateCard: Type.Object({ userUsd: Type.Number(), postUsd: Type.Number() }),
          platforms: Type.Array(
            Type.Object({
              platform: Type.String(),
              accounts: Type.Integer({ description: 'Accounts this import added (inserted or reactivated).' }),
              perDayUsd: Type.Number({
                description:
                  'Their profile checks: X bills a user at most once a UTC day, however often it is checked.',
              }),
              perMonthUsd: Type.Number({ description: 'The same over 30 days.' }),
              firstReadUsd: Type.Number({
                description:
                  'At most, once: their first timeline reads (up to 100 posts each). Posts after that cost what the accounts post.',
              }),
            }),
          ),
        },
        {
          description:
            'What tracking the added accounts costs at the current TRACK_INTERVAL and rate card (Bluesky: 0).',
        },
      ),
    ),
  },
  {
    examples: [
      {
        success: true,
        importId: 'imp_8d2kq0c1m3x5z7b9n4v6',
        received: 4,
        accepted: 2,
        inserted: 2,
        reactivated: 0,
        alreadyTracked: 0,
        duplicates: 1,
        rejected: [
          {
            line: 5,
            value: 'bad name!',
            code: 'invalid_username',
            reason: 'X usernames are 1-15 letters, digits or _',
          },
        ],
        rejectedCount: 1,
        rejectedTruncated: false,
        warnings: [],
      },
    ],
  },
);
const JsonBody = Type.Object(
  {
    file: Type.String({
      description: 'The CSV text itself, or a data URL (data:text/csv;base64,…). Never read as a path.',
    }),
  },
  { additionalProperties: false, examples: [{ file: 'username\njack\n@alice\nhttps://x.com/bob\n' }] },
);

const CsvFile = Type.String({ description: 'The CSV file itself (UTF-8).', contentMediaType: 'text/csv' });
const Multipart = Type.Object({ file: CsvFile }, { description: 'One file part named `file`.' });

/**
 * The CSV and multipart forms are read by the handler as streams, not validated by Fastify, so
 * they are added to the request body for the OpenAPI document only.
 */
const describeUploads: SwaggerTransform = ({ schema, url }) => {
  const body = schema.body as { content: Record<string, unknown> };
  const content = { ...body.content, 'text/csv': { schema: CsvFile }, 'multipart/form-data': { schema: Multipart } };
  return { schema: { ...schema, body: { ...body, content } }, url };
};

/** Hashes what passes through, for Idempotency-Key, without holding the upload in memory. */
async function* hashing(source: AsyncIterable<Buffer | string>, hash: Hash): AsyncIterable<Buffer | string> {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

export default async function insertRoutes(
  app: FastifyInstance,
  { imports, tracker }: { imports: ImportDeps; tracker: TrackerView | null },
) {
  const { maxImportBytes } = imports.config;
  await acceptCsvUploads(app, maxImportBytes);
  // A million names as JSON are a 13 MB body: parsed on a thread, not on the event loop.
  parseLargeJsonOffThread(app);

  app.post('/api/admin/insert', {
    config: { access: 'admin', swaggerTransform: describeUploads },
    // A data URL grows the file by a third, and JSON escaping a little more.
    bodyLimit: Math.ceil(maxImportBytes * 1.4) + 65_536,
    schema: {
      summary: 'Register usernames to track',
      description: [
        'Registers the usernames in a CSV file. Send it as JSON `{"file": "<CSV text>"}` (the text may also be a `data:text/csv;base64,…` URL), as `text/csv`, or as a `multipart/form-data` part named `file`.',
        'The CSV may have a header naming a `username` (or `handle`, `screen_name`, `user`, `account`) column and optional `platform` (`x`, `bluesky`), `tags` (split on `;` or `|`) and `note` columns; without a header the first column holds the usernames.',
        'Delimiter (`,` `;` tab), line ends and a BOM are detected. Values are trimmed; `@` and profile URLs are reduced to the name. Without a platform column, bsky.app URLs, DIDs and dotted handles are Bluesky, the rest DEFAULT_PLATFORM.',
        'The whole import commits in one transaction or not at all; sending the same file again changes nothing. Rows that cannot be used are listed in `rejected` with their line; if none can be used the answer is 422 `csv_no_usernames`. Limits: MAX_IMPORT_BYTES (413) and MAX_IMPORT_ROWS (422).',
      ].join('\n\n'),
      tags: ['accounts'],
      consumes: ['application/json', 'text/csv', 'multipart/form-data'],
      body: { content: { 'application/json': { schema: JsonBody } } },
      response: { 200: Report, ...problems(400, 401, 403, 409, 413, 415, 422, 429) },
    },
    handler: async (request, reply) => {
      const { source, form } = await readCsvUpload(request, {
        maxBytes: maxImportBytes,
        missing: 'Send {"file": "<CSV text>"} as JSON, the CSV itself as text/csv, or a multipart part named "file".',
      });
      const hash = createHash('sha256').update(form).update('\0');
      let logged = 0;
      const { report, added, estimate, replayed } = await importAccounts(imports, {
        // Text from JSON is hashed (and read) in chunks too: a 13 MB string hashed at once held the
        // event loop for tens of milliseconds on top of the JSON parse.
        source: hashing(typeof source === 'string' ? utf8Chunks(source) : source, hash),
        actor: actorOf(request),
        via: form,
        once: () => onceOf(request, hash.digest('hex')),
        progress: {
          written: (written, total) => {
            if (written - logged < PROGRESS_EVERY && written < total) return;
            logged = written;
            request.log.info({ written, total }, 'import progress');
          },
        },
      });
      if (replayed) reply.header('idempotent-replayed', 'true');
      // New accounts are due at once: wake the tracker in this process (others poll).
      if (added > 0) tracker?.notify();
      request.log.info(
        { importId: report.importId, inserted: report.inserted, rejected: report.rejectedCount },
        'import committed',
      );
      return reply.code(200).send({ ...report, estimate });
    },
  });
}
