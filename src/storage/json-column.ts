// Reading the JSON kept in text columns: a value that does not parse (or is missing) gives the
// fallback instead of failing the whole read.

export function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** A JSON array of strings (a post's hashtags, mentions, domains); anything else is dropped. */
export function parseStrings(text: string | null): string[] {
  const value = parseJson<unknown>(text, []);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
