// Reading an uploaded CSV file in every form perch takes it: a multipart file part named `file`,
// the CSV itself as the body (text/csv), or JSON `{"file": "<CSV text or data URL>"}`. The insert
// route and the dashboard's import both read uploads here, so they take the same forms and limits.
import { Readable } from 'node:stream';
import multipart, { type MultipartFields } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { importTooLarge } from '../domain/csv-import.ts';
import { PerchError } from '../domain/errors.ts';
import { decodeDataUrl } from './data-url.ts';

const CSV_TYPES = ['text/csv', 'text/plain', 'application/csv'];

export type UploadForm = 'multipart' | 'text/csv' | 'json' | 'data-url';

export interface CsvUpload {
  source: string | AsyncIterable<Buffer | string>;
  form: UploadForm;
}

export interface UploadOptions {
  maxBytes: number;
  /** The detail of missing_file when the request holds no file in any form. */
  missing: string;
  /** Sees the multipart fields sent before the file, before it is read (the dashboard checks its CSRF token). */
  beforeFile?: (fields: MultipartFields) => void;
}

/**
 * Lets the routes of `app`'s scope (only them: every other route answers these types 415) take
 * multipart and raw CSV bodies of up to `maxBytes`, and makes a JSON body past its limit the same
 * refusal as an oversized file in any other form.
 */
export async function acceptCsvUploads(app: FastifyInstance, maxBytes: number): Promise<void> {
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 10, parts: 11 } });
  app.addContentTypeParser(CSV_TYPES, (request, payload, done) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxBytes) return done(importTooLarge(maxBytes), undefined);
    done(null, payload);
  });
  app.setErrorHandler((error) => {
    throw fastifyCode(error) === 'FST_ERR_CTP_BODY_TOO_LARGE' ? importTooLarge(maxBytes) : error;
  });
}

/** The uploaded file, not yet read: its chunks are read by the import as it plans. */
export async function readCsvUpload(request: FastifyRequest, options: UploadOptions): Promise<CsvUpload> {
  const { maxBytes } = options;
  if (request.isMultipart()) {
    const part = await request.file().catch((error: unknown) => {
      throw malformedMultipart(error);
    });
    if (!part || part.fieldname !== 'file')
      throw new PerchError('missing_file', 'Send the CSV as a multipart file part named "file".');
    options.beforeFile?.(part.fields);
    return { source: refuseTruncated(part.file, maxBytes), form: 'multipart' };
  }
  const body = request.body;
  if (body instanceof Readable) return { source: body, form: 'text/csv' };
  if (body !== null && typeof body === 'object' && 'file' in body && typeof body.file === 'string') {
    if (body.file.startsWith('data:')) return { source: decodeDataUrl(body.file, maxBytes), form: 'data-url' };
    return { source: body.file, form: 'json' };
  }
  throw new PerchError('missing_file', options.missing);
}

const fastifyCode = (error: unknown): unknown =>
  error !== null && typeof error === 'object' && 'code' in error ? error.code : undefined;

/** The multipart parser's own errors (no boundary, cut-off body) are the client's: 400, not 500. */
function malformedMultipart(error: unknown): unknown {
  const code = fastifyCode(error);
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
