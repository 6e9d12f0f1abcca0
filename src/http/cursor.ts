// Opaque page cursors: the listing they belong to and the position after which the next page starts.
// A cursor comes back from the client, so its parts are checked like any other input.
import { PerchError } from '../domain/errors.ts';
import { CONTROL_CHARS } from '../domain/text.ts';

export function encodeCursor(parts: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

type Part = 'int' | 'text';
type Decoded<T extends readonly Part[]> = { [K in keyof T]: T[K] extends 'int' ? number : string };

const valid = (kind: Part, value: unknown): boolean =>
  kind === 'int'
    ? Number.isSafeInteger(value)
    : typeof value === 'string' && value.length <= 300 && !CONTROL_CHARS.test(value);

/** Decodes a cursor made by encodeCursor for `scope` whose parts have the given kinds, or fails with 400. */
export function decodeCursor<const T extends readonly Part[]>(cursor: string, scope: string, kinds: T): Decoded<T> {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(parts) &&
      parts[0] === scope &&
      parts.length === kinds.length + 1 &&
      kinds.every((kind, i) => valid(kind, parts[i + 1]))
    ) {
      return parts.slice(1) as Decoded<T>;
    }
  } catch {
    // fall through to the problem below
  }
  throw new PerchError('invalid_cursor', 'The cursor is not valid for this listing; start again without it.');
}
