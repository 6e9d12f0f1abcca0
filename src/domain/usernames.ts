// Turning what people paste (names, @names, profile URLs, DIDs) into a validated account reference.
import type { AccountRef } from './account.ts';
import type { Platform } from './platforms.ts';
import { CONTROL_CHARS, ZERO_WIDTH_CHARS } from './text.ts';

export type UsernameCheck =
  { ok: true; username: string; key: string } | { ok: false; code: 'invalid_username'; reason: string };

/** What a name given in a request means: the account (and the name as the platform writes it), or why not. */
export type ParsedAccountRef =
  (AccountRef & { ok: true; username: string }) | { ok: false; code: 'invalid_username'; reason: string };

// Profile URLs, with or without scheme; whatever follows the name (/status/1, ?s=20, #top) is dropped.
// `#!/` is the pre-2012 Twitter hash-bang form that still circulates in old spreadsheets.
const X_URL = /^(?:https?:\/\/)?(?:www\.|mobile\.)?(?:x|twitter)\.com\/(?:#!\/)?@?([^/?#\s]+)/i;
const BLUESKY_URL = /^(?:https?:\/\/)?(?:www\.)?bsky\.app\/profile\/([^/?#\s]+)/i;
// First path segments that are pages of X itself, not profiles: x.com/home, x.com/i/lists/1,
// x.com/search?q=…. X reserves these names, so no account can be called that.
const X_PAGES = new Set([
  'home',
  'i',
  'search',
  'explore',
  'notifications',
  'messages',
  'settings',
  'compose',
  'hashtag',
  'intent',
  'share',
  'login',
  'logout',
  'signup',
  'account',
  'tos',
  'privacy',
  'about',
  'download',
  'jobs',
  'lists',
  'bookmarks',
  'communities',
  'who_to_follow',
  'following',
  'followers',
  'topics',
  'verified',
  'premium',
  'spaces',
]);

const X_USERNAME = /^[A-Za-z0-9_]{1,15}$/;
// atproto handle syntax: https://atproto.com/specs/handle#handle-identifier-syntax
const HANDLE_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// The spec reserves these TLDs; `handle.invalid` is what Bluesky shows for a broken handle,
// so it is a value people actually paste.
const DISALLOWED_TLDS = new Set(['alt', 'arpa', 'example', 'internal', 'invalid', 'local', 'localhost', 'onion']);
// https://github.com/did-method-plc/did-method-plc: 24 characters of base32 (lower-case, 2-7).
const DID_PLC = /^did:plc:[a-z2-7]{24}$/;

const REASONS = {
  control: 'contains a line break or control character',
  x: 'X usernames are 1-15 letters, digits or _',
  handle:
    'Bluesky handles are domain names such as alice.bsky.social: at least two dot-separated labels of letters, digits or - (not at the start or end of a label), at most 253 characters, ending in a top-level domain that starts with a letter',
  reservedTld: 'Bluesky handles cannot use a reserved top-level domain (.invalid, .local, .example, …)',
  did: 'Bluesky DIDs are did:plc: followed by 24 characters a-z or 2-7, or did:web: followed by a domain name',
  empty: 'is empty',
  xPage: (page: string) =>
    `x.com/${page} is a page of X, not a profile; give a username or a profile address such as x.com/jack`,
} as const;

/** The first path segment of an x.com address that is a page of X itself (home, search, i…), not a profile. */
export function isXPage(segment: string): boolean {
  return X_PAGES.has(segment.toLowerCase());
}

function decodePercent(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value; // a malformed escape is left as is and fails validation instead
  }
}

/**
 * Cleans one pasted value and reduces a profile URL to the name it points at. Never throws;
 * `notProfile` says why an X address that points at a page of X itself (home, search…) is no name.
 */
export function normalizeUsernameInput(raw: string): {
  value: string;
  platformHint: Platform | null;
  notProfile?: string;
} {
  // Zero-width characters are removed anywhere in the value rather than reported.
  let value = String(raw).replace(ZERO_WIDTH_CHARS, '').trim();
  let platformHint: Platform | null = null;
  const isPath = value.includes('/'); // the common case, a bare name, skips both URL patterns
  const x = isPath ? X_URL.exec(value) : null;
  const bluesky = isPath && !x ? BLUESKY_URL.exec(value) : null;
  if (x?.[1] !== undefined) {
    value = decodePercent(x[1]);
    platformHint = 'x';
    if (isXPage(value)) return { value, platformHint, notProfile: REASONS.xPage(value.toLowerCase()) };
  } else if (bluesky?.[1] !== undefined) {
    value = decodePercent(bluesky[1]); // DIDs in URLs are often written did%3Aplc%3A…
    platformHint = 'bluesky';
  }
  if (value.startsWith('@')) value = value.slice(1);
  return { value: value.trim(), platformHint };
}

/** The platform a value belongs to: an explicit choice, then the URL it came from, then its shape. */
export function inferPlatform(
  value: string,
  hint: Platform | null,
  explicit: Platform | null,
  defaultPlatform: Platform,
): Platform {
  if (explicit !== null) return explicit;
  if (hint !== null) return hint;
  // X names can contain neither `.` nor `:`, so a dotted name or a DID can only be Bluesky.
  if (value.toLowerCase().startsWith('did:') || value.includes('.')) return 'bluesky';
  return defaultPlatform;
}

function isDomain(value: string): boolean {
  if (value.length > 253) return false;
  const labels = value.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((label) => HANDLE_LABEL.test(label))) return false;
  return /^[a-z]/.test(labels[labels.length - 1] ?? '');
}

function validateBluesky(value: string): UsernameCheck {
  // Handles and DIDs are case-insensitive in practice (the PDS lower-cases handles), so the
  // lower-case form is both what is stored and what identity is compared on.
  const lower = value.toLowerCase();
  if (lower.startsWith('did:')) {
    const ok = DID_PLC.test(lower) || (lower.startsWith('did:web:') && isDomain(lower.slice('did:web:'.length)));
    return ok
      ? { ok: true, username: lower, key: lower }
      : { ok: false, code: 'invalid_username', reason: REASONS.did };
  }
  if (!isDomain(lower)) return { ok: false, code: 'invalid_username', reason: REASONS.handle };
  const tld = lower.slice(lower.lastIndexOf('.') + 1);
  if (DISALLOWED_TLDS.has(tld)) return { ok: false, code: 'invalid_username', reason: REASONS.reservedTld };
  return { ok: true, username: lower, key: lower };
}

/** Checks a normalised value against the platform's rules; `key` is the case-insensitive identity. */
export function validateUsername(platform: Platform, value: string): UsernameCheck {
  // A value holding a control character was glued together from several lines (a quoted
  // "alice\nbob") and must not be guessed apart.
  if (CONTROL_CHARS.test(value)) return { ok: false, code: 'invalid_username', reason: REASONS.control };
  if (platform === 'x') {
    // X keeps the case people typed for display, but names are unique regardless of case.
    return X_USERNAME.test(value)
      ? { ok: true, username: value, key: value.toLowerCase() }
      : { ok: false, code: 'invalid_username', reason: REASONS.x };
  }
  return validateBluesky(value);
}

/** normalize + infer + validate in one step, for a single name given in a query string. */
export function parseAccountRef(
  raw: string,
  explicitPlatform: Platform | null,
  defaultPlatform: Platform,
): ParsedAccountRef {
  const { value, platformHint, notProfile } = normalizeUsernameInput(raw);
  if (notProfile !== undefined) return { ok: false, code: 'invalid_username', reason: notProfile };
  if (value === '') return { ok: false, code: 'invalid_username', reason: REASONS.empty };
  const platform = inferPlatform(value, platformHint, explicitPlatform, defaultPlatform);
  const check = validateUsername(platform, value);
  return check.ok ? { ok: true, platform, username: check.username, key: check.key } : check;
}
