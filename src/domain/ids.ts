// Public identifiers: a type prefix (`key_`, `imp_`) and random characters, or a prefixed row number.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `key_` + 20 random base36 characters (~103 bits): unguessable, safe in URLs. */
export function newId(prefix: 'key' | 'imp' | 'evt' | 'wh' | 'whsec' | 'alr' | 'dgst'): string {
  const bytes = randomBytes(20);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return `${prefix}_${out}`;
}

/** Accounts use their row number, which keeps the 1M-row import and index small. */
export function accountPublicId(rowId: number): string {
  return `acc_${rowId}`;
}
