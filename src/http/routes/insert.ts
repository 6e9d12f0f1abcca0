// POST /api/admin/insert: register usernames to track, from CSV sent in any of four forms.
import { createHash, type Hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { SwaggerTransform } from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { importTooLarge } from '../../domain/csv-import.ts';
import { utf8Chunks } from '../../domain/csv-stream.ts';
import { parseLargeJsonOffThread } from '../json-off-thread.ts';
import { PerchError } from '../../domain/errors.ts';
import { commitImportOnce, planImport } from '../../services/import-accounts.ts';
import { estimateForImport } from '../../services/spend.ts';
import { actorOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { onceOf } from '../idempotency.ts';
import { problems } from '../schemas.ts';
import { decodeDataUrl } from '../data-url.ts';

const CSV_TYPES = ['text/csv', 'text/plain', 'application/csv'];
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

/** The multipart parser's own errors (no boundary, cut-off body) are the client's: 400, not 500. */
function malformedMultipart(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (error instanceof PerchError || (typeof code === 'string' && code.startsWith('FST_'))) return error;
  return new PerchError('bad_request', 'The multipart body is malformed.');
}

/** The multipart parser cuts a file at the size limit without an error; make the cut an error. */
async function* refuseTruncated(
  file: AsyncIterable<Buffer> & { truncated: boolean },
  maxBytes: number,
): AsyncIterable<Buffer> {
  try {
    for await (const chunk of file) yield chunk;
  } catch (error) {
    throw malformedMultipart(error);
  }
  if (file.truncated) throw importTooLarge(maxBytes);
}

async function csvSource(
  request: FastifyRequest,
  maxBytes: number,
): Promise<{ source: string | AsyncIterable<Buffer | string>; form: string }> {
  if (request.isMultipart()) {
    const part = await request.file().catch((error: unknown) => {
      throw malformedMultipart(error);
    });
    if (!part || part.fieldname !== 'file')
      throw new PerchError('missing_file', 'Send the CSV as a multipart file part named "file".');
    return { source: refuseTruncated(part.file, maxBytes), form: 'multipart' };
  }
  const body = request.body;
  if (body !== null && typeof body === 'object' && 'file' in body && typeof body.file === 'string') {
    if (body.file.startsWith('data:')) return { source: decodeDataUrl(body.file, maxBytes), form: 'data-url' };
    return { source: body.file, form: 'json' };
  }
  if (body !== null && typeof body === 'object' && typeof (body as Readable).pipe === 'function')
    return { source: body as Readable, form: 'text/csv' };
  throw new PerchError(
    'missing_file',
    'Send {"file": "<CSV text>"} as JSON, the CSV itself as text/csv, or a multipart part named "file".',
  );
}

export default async function insertRoutes(app: FastifyInstance, deps: AppDeps) {
  const { config } = deps;
  // multipart and raw CSV are accepted here only; every other route answers them with 415.
  await app.register(multipart, { limits: { fileSize: config.maxImportBytes, files: 1, fields: 10, parts: 11 } });
  // The JSON form past its body limit is the same refusal as an oversized file in any other form.
  app.setErrorHandler((error) => {
    throw (error as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE'
      ? importTooLarge(config.maxImportBytes)
      : error;
  });
  // A million names as JSON are a 13 MB body: parsed on a thread, not on the event loop.
  parseLargeJsonOffThread(app);
  app.addContentTypeParser(CSV_TYPES, (request, payload, done) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > config.maxImportBytes) return done(importTooLarge(config.maxImportBytes), undefined);
    done(null, payload);
  });

  app.post('/api/admin/insert', {
    config: { access: 'admin', swaggerTransform: describeUploads },
    // A data URL grows the file by a third, and JSON escaping a little more.
    bodyLimit: Math.ceil(config.maxImportBytes * 1.4) + 65_536,
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
      const { source, form } = await csvSource(request, config.maxImportBytes);
      const hash = createHash('sha256').update(form).update('\0');
      // Text from JSON is hashed (and read) in chunks too: a 13 MB string hashed at once held the
      // event loop for tens of milliseconds on top of the JSON parse.
      const plan = await planImport(hashing(typeof source === 'string' ? utf8Chunks(source) : source, hash), config);
      let logged = 0;
      const onProgress = (written: number, total: number) => {
        if (written - logged < PROGRESS_EVERY && written < total) return;
        logged = written;
        request.log.info({ written, total }, 'import progress');
      };
      const once = onceOf(request, hash.digest('hex'), deps.sealKey);
      const result = await commitImportOnce(
        deps.store,
        plan,
        { actor: actorOf(request), source: form, clock: deps.clock, onProgress },
        once,
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      // New accounts are due at once: wake the tracker in this process (others poll).
      if (result.body.inserted + result.body.reactivated > 0) deps.tracker?.notify();
      request.log.info(
        { importId: result.body.importId, inserted: result.body.inserted, rejected: result.body.rejectedCount },
        'import committed',
      );
      const estimate = estimateForImport(config, plan.rows, result.body.inserted + result.body.reactivated);
      return reply.code(200).send({ ...result.body, estimate });
    },
  });
}
