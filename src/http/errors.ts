// The only place that knows HTTP status codes: maps error codes to RFC 9457 problem documents.
// https://www.rfc-editor.org/rfc/rfc9457
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PerchError, type ErrorCode, type FieldProblem } from '../domain/errors.ts';

/** Every code has a status: a code added to ERROR_CODES without one here does not compile. */
const STATUS_BY_CODE: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  invalid_json: 400,
  invalid_encoding: 400,
  invalid_cursor: 400,
  invalid_username: 400,
  invalid_value: 400,
  invalid_time_range: 400,
  missing_file: 400,
  invalid_webhook_url: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  api_key_revoked: 401,
  api_key_expired: 401,
  forbidden: 403,
  not_found: 404,
  account_not_found: 404,
  api_key_not_found: 404,
  webhook_not_found: 404,
  alert_not_found: 404,
  digest_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  last_admin_key: 409,
  account_paused: 409,
  follower_list_too_large: 409,
  webhook_disabled: 409,
  idempotency_in_progress: 409,
  import_in_progress: 409,
  import_too_large: 413,
  body_too_large: 413,
  unsupported_media_type: 415,
  csv_no_usernames: 422,
  csv_too_many_rows: 422,
  csv_malformed: 422,
  idempotency_key_mismatch: 422,
  expiry_in_past: 422,
  webhook_url_refused: 422,
  rate_limited: 429,
  too_many_auth_failures: 429,
  too_many_streams: 429,
  request_header_too_large: 431,
  internal: 500,
  store_unavailable: 503,
  shutting_down: 503,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function statusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code];
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
  errors?: readonly FieldProblem[];
  [extension: string]: unknown;
}

export function problemOf(error: PerchError, requestId: string): Problem {
  const status = statusOf(error.code);
  return {
    ...error.extensions,
    type: `urn:perch:problem:${error.code.replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail: error.detail,
    code: error.code,
    requestId,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/**
 * True while the client is still sending a body nobody has read (a refusal before parsing, a limit
 * hit midway). Keeping the connection would make Node read and discard the rest of the upload.
 * light-my-request has no `complete`, so injected requests never count.
 */
function bodyStillArriving(request: FastifyRequest): boolean {
  if (request.raw.complete !== false) return false;
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The caller's own X-Request-Id when it is harmless (short, plain), else null. */
export function callerRequestId(request: FastifyRequest): string | null {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && CALLER_REQUEST_ID.test(given) ? given : null;
}

/** Sends a problem document; the headers (WWW-Authenticate, Allow, Retry-After) go with it. */
export function sendProblem(
  reply: FastifyReply,
  error: PerchError,
  headers: Record<string, string> = {},
): FastifyReply {
  const problem = problemOf(error, String(reply.request.id));
  const caller = callerRequestId(reply.request);
  if (caller !== null) problem.callerRequestId = caller;
  // Node closes the socket after a response carrying `connection: close` instead of draining the upload.
  if (bodyStillArriving(reply.request)) headers = { ...headers, connection: 'close' };
  return reply
    .code(problem.status)
    .headers(headers)
    .type('application/problem+json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(problem);
}

// Fastify's own errors, by their code, as ours. Their messages are never shown (they may name internals).
const FASTIFY_ERRORS: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['body_too_large', 'The request body is larger than this route accepts.'],
  FST_REQ_FILE_TOO_LARGE: ['import_too_large', 'The uploaded file is larger than MAX_IMPORT_BYTES.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'This route does not accept that Content-Type.'],
  FST_INVALID_MULTIPART_CONTENT_TYPE: ['unsupported_media_type', 'The request is not multipart/form-data.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'The body is empty but Content-Type says JSON.'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'The body is not valid JSON.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['bad_request', 'Content-Length does not match the body.'],
  FST_ERR_CTP_INVALID_TYPE: ['unsupported_media_type', 'The Content-Type header is not valid.'],
  FST_PARTS_LIMIT: ['bad_request', 'Too many parts in the multipart body.'],
  FST_FILES_LIMIT: ['bad_request', 'Send exactly one file part, named "file".'],
  FST_FIELDS_LIMIT: ['bad_request', 'Too many fields in the multipart body.'],
  FST_PROTO_VIOLATION: ['invalid_json', 'The body is not valid JSON.'],
  FST_ERR_VALIDATION: ['validation_failed', 'The request does not match the schema.'],
};

/** Field problems listed in a validation error; the count of the rest is given. */
const MAX_FIELD_PROBLEMS = 10;

/** What the store's dialect knows about its own errors (its capabilities object fits this). */
export interface StoreErrors {
  isUnavailable(error: unknown): boolean;
  isInvalidValue(error: unknown): boolean;
}

/** Turns anything thrown into a PerchError, hiding internals; `store` recognises outages and refused values. */
export function toPerchError(error: unknown, store: StoreErrors): PerchError {
  if (error instanceof PerchError) return error;
  const fastifyError = error as Partial<FastifyError> & {
    validation?: { instancePath: string; message?: string; params?: Record<string, unknown> }[];
    validationContext?: string;
  };
  if (Array.isArray(fastifyError.validation)) {
    const where = fastifyError.validationContext ?? 'body';
    // A body with thousands of unknown fields would otherwise come back as a multi-megabyte detail.
    const shown = fastifyError.validation.slice(0, MAX_FIELD_PROBLEMS);
    const more = fastifyError.validation.length - shown.length;
    const errors = shown.map((v) => {
      const missing = v.params?.missingProperty;
      const extra = v.params?.additionalProperty;
      const field = `${where}${v.instancePath}${missing ? `/${String(missing)}` : ''}${extra ? `/${String(extra)}` : ''}`;
      return { field: field.slice(0, 200), message: extra ? 'is not a known field' : (v.message ?? 'is invalid') };
    });
    const list = `${errors.map((e) => `${e.field} ${e.message}`).join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
    return new PerchError('validation_failed', `The request ${where} is invalid: ${list}.`, { errors });
  }
  const known = fastifyError.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
  if (known) return new PerchError(known[0], known[1]);
  if (error instanceof SyntaxError && fastifyError.statusCode === 400)
    return new PerchError('invalid_json', 'The body is not valid JSON.');
  if (store.isUnavailable(error))
    return new PerchError('store_unavailable', 'The store is unavailable; try again shortly.');
  // A NUL byte in text, a number out of range: the value came from the request, so it is the client's.
  if (store.isInvalidValue(error)) return new PerchError('invalid_value', 'A value in the request cannot be stored.');
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 408) return new PerchError('request_timeout', 'The request took too long to arrive.');
    if (status === 413) return new PerchError('body_too_large', 'The request body is too large.');
    if (status === 415)
      return new PerchError('unsupported_media_type', 'This route does not accept that Content-Type.');
    return new PerchError('bad_request', 'The request could not be understood.');
  }
  return new PerchError('internal', 'Something went wrong on our side. Quote the requestId if you report it.');
}

const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** The client went away mid-request (an upload cut off): nothing failed on our side. */
function clientAborted(error: unknown, request: FastifyRequest): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const connectionError = (typeof code === 'string' && ABORT_CODES.has(code)) || message === 'aborted';
  // The same codes from a store connection are an outage, not an abort: the client's socket decides.
  return connectionError && (request.raw.destroyed || request.raw.socket?.destroyed === true);
}

export function buildErrorHandler(store: StoreErrors) {
  return function handleError(this: unknown, error: unknown, request: FastifyRequest, reply: FastifyReply) {
    if (clientAborted(error, request)) {
      request.log.info({ code: (error as { code?: unknown }).code }, 'request aborted by the client');
      return sendProblem(
        reply,
        new PerchError('bad_request', 'The client closed the connection before the request was complete.'),
      );
    }
    const perchError = toPerchError(error, store);
    const status = statusOf(perchError.code);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: perchError.code }, 'request refused');
    const headers: Record<string, string> = {};
    if (perchError.code === 'store_unavailable') headers['retry-after'] = '5';
    return sendProblem(reply, perchError, headers);
  };
}
