// Parsing of the human units used in configuration: durations (`30s`, `15m`, `1h`, `1d`) and sizes (`50MiB`).

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i;
const DURATION_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds for `30s`, `15m`, `1h`, `1d`, `250ms`, or a bare number of seconds; null if unreadable. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  const unit = (match[2]?.toLowerCase() ?? 's') as keyof typeof DURATION_MS;
  return Math.round(Number(match[1]) * DURATION_MS[unit]);
}

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib)?$/i;
const SIZE_BYTES = {
  b: 1,
  kb: 1_000,
  kib: 1_024,
  mb: 1_000_000,
  mib: 1_048_576,
  gb: 1_000_000_000,
  gib: 1_073_741_824,
} as const;

/** Bytes for `52428800`, `50MiB`, `10mb`; null if unreadable. */
export function parseSize(text: string): number | null {
  const match = SIZE.exec(text.trim());
  if (!match) return null;
  const unit = (match[2]?.toLowerCase() ?? 'b') as keyof typeof SIZE_BYTES;
  return Math.floor(Number(match[1]) * SIZE_BYTES[unit]);
}
