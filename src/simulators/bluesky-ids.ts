// Identifiers of the fake AppView's records: DIDs, TIDs and CIDs in their real syntax, and the
// binary search that keeps author feeds sorted.
import { createHash } from 'node:crypto';
import type { FeedEntry } from './bluesky-types.ts';

export const BASE32_SORT = '234567abcdefghijklmnopqrstuvwxyz';
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export function base32(bytes: Uint8Array, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i += 1) out += BASE32[(bytes[i % bytes.length] ?? 0) % 32];
  return out;
}

export function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** A TID: 53 bits of microseconds and 10 of clock id, in base32 that sorts as the time does. */
export function tidOf(micros: bigint): string {
  let value = (micros << 10n) | 7n;
  let out = '';
  for (let i = 0; i < 13; i += 1) {
    out = BASE32_SORT[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

export function cidOf(uri: string): string {
  return `bafyrei${base32(digest(uri), 52)}`;
}

/** Index of the first entry older than (sortAt, seq) in a newest-first feed: a binary search. */
export function firstOlder(feed: readonly FeedEntry[], sortAt: number, seq: number): number {
  let low = 0;
  let high = feed.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    const entry = feed[mid] as FeedEntry;
    const older = entry.sortAt < sortAt || (entry.sortAt === sortAt && entry.seq < seq);
    if (older) high = mid;
    else low = mid + 1;
  }
  return low;
}
