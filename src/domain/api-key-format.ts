// The API key format: `perch_` + 256 random bits + a checksum, and its keyed hash for storage.
// The checksum lets a mistyped or truncated key be refused without touching the store, and the
// fixed prefix lets secret scanners find leaked keys (the same idea as GitHub's token format).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'perch_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 43; // 32 bytes in base62
const CHECKSUM_LENGTH = 6; // a CRC-32 in base62
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

function checksum(body: string): string {
  // A CRC-32 fits a plain number; no BigInt on the path every request takes.
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A new key from 32 random bytes (the caller supplies them, so this stays pure and testable). */
export function formatApiKey(random: Uint8Array): string {
  if (random.length !== 32) throw new Error('an API key needs exactly 32 random bytes');
  const body = base62(BigInt(`0x${Buffer.from(random).toString('hex')}`), BODY_LENGTH);
  return `${API_KEY_PREFIX}${body}${checksum(body)}`;
}

/** True when the text has our shape and its checksum matches: cheap, before any lookup. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_LENGTH);
  return checksum(body) === key.slice(API_KEY_PREFIX.length + BODY_LENGTH);
}

/** The part of a key that may be shown again later, to recognise it (`perch_ab12`). */
export function apiKeyStart(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}

/** HMAC-SHA-256 under the server secret: a stolen database alone cannot confirm a guessed key. */
export function hashApiKey(key: string, secret: string): string {
  return createHmac('sha256', secret).update(key).digest('hex');
}

/** Constant-time comparison of two hashes made by hashApiKey (equal lengths by construction). */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
