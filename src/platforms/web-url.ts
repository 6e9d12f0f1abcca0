// Links the platforms hand us (profile website, avatar, post permalink) are shown to API callers
// and in the dashboard as links: only http(s) ones are kept, so a `javascript:` or `data:` value
// set by an account holder never reaches a browser.
const WEB_SCHEMES = new Set(['http:', 'https:']);

/** The URL when it is an absolute http(s) URL, else null. */
export function webUrlOrNull(value: string | null): string | null {
  if (value === null) return null;
  try {
    return WEB_SCHEMES.has(new URL(value).protocol) ? value : null;
  } catch {
    return null;
  }
}
