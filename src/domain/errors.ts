// The one error type of perch: a stable machine-readable code plus a human detail.
// Only http/errors.ts knows which HTTP status each code becomes.

/** Every code a problem document can carry: a union, so a misspelled code does not compile. */
export const ERROR_CODES = [
  'bad_request',
  'validation_failed',
  'invalid_json',
  'invalid_encoding',
  'invalid_cursor',
  'invalid_username',
  'invalid_value',
  'invalid_time_range',
  'missing_file',
  'invalid_webhook_url',
  'missing_api_key',
  'invalid_api_key',
  'api_key_revoked',
  'api_key_expired',
  'forbidden',
  'not_found',
  'account_not_found',
  'api_key_not_found',
  'webhook_not_found',
  'alert_not_found',
  'digest_not_found',
  'method_not_allowed',
  'request_timeout',
  'last_admin_key',
  'account_paused',
  'follower_list_too_large',
  'webhook_disabled',
  'idempotency_in_progress',
  'import_in_progress',
  'import_too_large',
  'body_too_large',
  'unsupported_media_type',
  'csv_no_usernames',
  'csv_too_many_rows',
  'csv_malformed',
  'idempotency_key_mismatch',
  'expiry_in_past',
  'webhook_url_refused',
  'rate_limited',
  'too_many_auth_failures',
  'too_many_streams',
  'request_header_too_large',
  'internal',
  'store_unavailable',
  'shutting_down',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldProblem {
  /** JSON pointer or field name (`/role`), or a CSV line for import problems. */
  field?: string;
  line?: number;
  value?: string;
  code?: string;
  message: string;
}

export class PerchError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly errors: readonly FieldProblem[] | undefined;
  /** Extra members placed on the problem document (e.g. the rejected list of an import). */
  readonly extensions: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: readonly FieldProblem[]; extensions?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PerchError';
    this.code = code;
    this.detail = detail;
    this.errors = options.errors;
    this.extensions = options.extensions;
  }
}
