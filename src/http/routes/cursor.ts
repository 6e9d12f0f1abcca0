// Opaque page cursors: the sort they belong to and the position after which the next page starts.
import { PerchError } from '../../domain/errors.ts';

export function encodeCursor(parts: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** Decodes a cursor made by encodeCursor for `scope`, or fails with 400 invalid_cursor. */
export function decodeCursor(cursor: string, scope: string): unknown[] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(parts) && parts[0] === scope) return parts.slice(1);
  } catch {
    // fall through to the problem below
  }
  throw new PerchError('invalid_cursor', 'The cursor is not valid for this listing; start again without it.');
}
