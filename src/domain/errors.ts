// The one error type of perch: a stable machine-readable code plus a human detail.
// Only http/errors.ts knows which HTTP status each code becomes.

export interface FieldProblem {
  /** JSON pointer or field name (`/role`), or a CSV line for import problems. */
  field?: string;
  line?: number;
  value?: string;
  code?: string;
  message: string;
}

export class PerchError extends Error {
  readonly code: string;
  readonly detail: string;
  readonly errors: readonly FieldProblem[] | undefined;
  /** Extra members placed on the problem document (e.g. the rejected list of an import). */
  readonly extensions: Readonly<Record<string, unknown>> | undefined;

  constructor(code: string, detail: string, options: { errors?: readonly FieldProblem[]; extensions?: Record<string, unknown>; cause?: unknown } = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PerchError';
    this.code = code;
    this.detail = detail;
    this.errors = options.errors;
    this.extensions = options.extensions;
  }
}
