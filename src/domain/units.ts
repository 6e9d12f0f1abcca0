// The human units used in configuration and shown back: durations (`30s`, `15m`, `1h`, `1d`) and sizes (`50MiB`).

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i;
const DURATION_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds for `30s`, `15m`, `1h`, `1d`, `250ms`, or a bare number of seconds; null if unreadable. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  const unit = (match[2]?.toLowerCase() ?? 's') as keyof typeof DURATION_MS;
  return Math.round(Number(match[1]) * DURATION_MS[unit]);
}

/** Largest first, for formatDuration. */
const DURATION_UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
] as const;

/**
 * `3600000` → `1h`, `900000` → `15m`: the largest unit that says `ms` exactly (parseDuration reads
 * it back). With `daysAboveMs`, days only above it (`48h` rather than `2d`).
 */
export function formatDuration(ms: number, options: { daysAboveMs?: number } = {}): string {
  for (const [unit, size] of DURATION_UNITS) {
    if (unit === 'd' && options.daysAboveMs !== undefined && ms <= options.daysAboveMs) continue;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
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
