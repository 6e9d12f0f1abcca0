// Shared by the perch sub-commands: exit codes, failures shown without stack traces, and text formatting.
import { CommanderError } from 'commander';
import { PerchError } from '../domain/errors.ts';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A failure to show the user as is: `message` (may span lines), and optionally a JSON body for --json. */
export class CliError extends Error {
  readonly exitCode: number;
  readonly json: unknown;

  constructor(message: string, options: { exitCode?: number; json?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? EXIT.failed;
    this.json = options.json;
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

// Control characters (C0, DEL, C1 such as CSI), line/paragraph separators and bidi overrides: a CSV
// value or a server's reply could otherwise move the cursor or recolour the terminal.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g; // eslint-disable-line no-control-regex
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Text from outside (files, servers, the store) made safe to print on one line. */
export function clean(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** A value shown in quotes, with anything invisible escaped. */
export function quote(text: string): string {
  return `"${clean(text.replaceAll('\\', '\\\\').replaceAll('"', '\\"'))}"`;
}

/** `2026-11-23 12:00` (UTC), or `-`. */
export function shortTime(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? 'GiB'}`;
}

/** Left-aligned columns separated by two spaces. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].map((text) => `${text}\n`).join('');
}

/** What a problem (a PerchError here, or a server's problem document) says, as lines for the terminal. */
export interface ProblemLike {
  detail?: unknown;
  code?: unknown;
  errors?: unknown;
  rejected?: unknown;
  rejectedCount?: unknown;
}

interface Rejected {
  line: number;
  value: string;
  code: string;
  reason: string;
}

export const REJECTIONS_SHOWN = 20;

export function rejectionLines(rejected: readonly Rejected[], total: number): string {
  const shown = rejected.slice(0, REJECTIONS_SHOWN);
  const lines = shown.map((r) => `  line ${r.line}: ${quote(r.value)}  ${clean(r.code)}: ${clean(r.reason)}\n`);
  if (total > shown.length) lines.push(`  … and ${total - shown.length} more (--json lists up to 1,000)\n`);
  return lines.join('');
}

function isRejected(value: unknown): value is Rejected {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.line === 'number' &&
    typeof r.value === 'string' &&
    typeof r.code === 'string' &&
    typeof r.reason === 'string'
  );
}

export function describeProblem(problem: ProblemLike): string {
  const detail = typeof problem.detail === 'string' ? clean(problem.detail) : 'The request failed.';
  let text = `perch: ${detail}${typeof problem.code === 'string' ? ` (${clean(problem.code)})` : ''}\n`;
  if (Array.isArray(problem.rejected) && problem.rejected.every(isRejected) && problem.rejected.length > 0) {
    const total = typeof problem.rejectedCount === 'number' ? problem.rejectedCount : problem.rejected.length;
    text += `Rejected rows:\n${rejectionLines(problem.rejected, total)}`;
  } else if (Array.isArray(problem.errors)) {
    for (const item of problem.errors.slice(0, REJECTIONS_SHOWN)) {
      if (item === null || typeof item !== 'object') continue;
      const { line, field, message } = item as Record<string, unknown>;
      const where = typeof line === 'number' ? `line ${line}` : typeof field === 'string' ? clean(field) : '';
      text += `  ${where}${where ? ': ' : ''}${typeof message === 'string' ? clean(message) : 'invalid'}\n`;
    }
  }
  return text;
}

/** The JSON a --json caller gets for a PerchError: the fields of a problem document. */
export function problemJson(error: PerchError): Record<string, unknown> {
  return {
    ...error.extensions,
    detail: error.detail,
    code: error.code,
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/**
 * Shows any failure without a stack trace (unless LOG_LEVEL is debug or trace) and returns the exit
 * code: 2 for bad usage, 1 for everything else.
 */
export function reportFailure(error: unknown, options: { json: boolean }): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage; // commander printed it
  const debug = ['debug', 'trace'].includes((process.env.LOG_LEVEL ?? '').toLowerCase());
  if (error instanceof CliError) {
    if (options.json && error.json !== undefined) printJson(error.json);
    process.stderr.write(error.message.endsWith('\n') ? error.message : `${error.message}\n`);
    if (debug && error.cause !== undefined)
      process.stderr.write(`${String((error.cause as Error).stack ?? error.cause)}\n`);
    return error.exitCode;
  }
  if (error instanceof PerchError) {
    if (options.json) printJson(problemJson(error));
    process.stderr.write(
      describeProblem({ ...error.extensions, detail: error.detail, code: error.code, errors: error.errors }),
    );
    if (debug) process.stderr.write(`${error.stack ?? ''}\n`);
    return EXIT.failed;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`perch: ${clean(message)}\n`);
  process.stderr.write(
    debug
      ? `${error instanceof Error ? (error.stack ?? '') : ''}\n`
      : '(set LOG_LEVEL=debug to see where it happened)\n',
  );
  return EXIT.failed;
}
