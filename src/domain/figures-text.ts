// Figures as a person reads them, keeping the precision they have: 1,250 followers, 12.5 %,
// $0.005 per post (never rounded to a cent it is not). Shared by the dashboard and the digests.

const KEPT = new Intl.NumberFormat('en', { maximumFractionDigits: 6 });

/** A number with thousands separators and its own decimals (float noise beyond 6 places dropped); "?" when absent. */
export function figure(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '?' : KEPT.format(value);
}

/** "1 follower", "12 followers". */
export function plural(count: number | null | undefined, noun: string): string {
  return `${figure(count)} ${count === 1 ? noun : `${noun}s`}`;
}

/** Dollars with at least cents and as many more decimals as the amount has: $0.01, $0.005, $1,234.50. */
export function dollars(value: number): string {
  const sign = value < 0 ? '-' : '';
  const text = Math.abs(value).toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
  return `${sign}$${text}`;
}

/** A signed change: +12, −3 (a true minus sign), 0. */
export function signedFigure(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '?';
  if (value > 0) return `+${figure(value)}`;
  if (value < 0) return `−${figure(-value)}`;
  return '0';
}

/**
 * An account's name as each platform writes it in a sentence: "@name" on X and "@alice.bsky.social"
 * on Bluesky (Bluesky shows its handles with the "@" too). A Bluesky account perch knows only by its
 * DID (imported so, not yet resolved) is written bare: Bluesky never puts "@" before a DID.
 */
export function handleText(username: string): string {
  return username.toLowerCase().startsWith('did:') ? username : `@${username}`;
}
