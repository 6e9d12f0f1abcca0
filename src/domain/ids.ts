// Public identifiers: a type prefix (`key_`, `imp_`) and random characters, or a prefixed row number.
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `key_` + 20 random base36 characters (~103 bits): unguessable, safe in URLs. */
export function newId(prefix: 'key' | 'imp' | 'evt' | 'wh' | 'whsec' | 'alr' | 'dgst'): string {
  // The bytes come from a pool filled 4 KiB at a time: one call of the system's generator per
  // 200 ids instead of one per id (a stream batch writes hundreds of events at once).
  if (poolAt + ID_BYTES > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let out = '';
  for (let i = poolAt; i < poolAt + ID_BYTES; i += 1) out += ALPHABET[pool[i]! % 36];
  poolAt += ID_BYTES;
  return `${prefix}_${out}`;
}

const ID_BYTES = 20;
const pool = Buffer.alloc(4_000);
let poolAt = pool.length;

/** Accounts use their row number, which keeps the 1M-row import and index small. */
export function accountPublicId(rowId: number): string {
  return `acc_${rowId}`;
}
