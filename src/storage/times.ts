// Stored times are epoch milliseconds; the API speaks ISO 8601 in UTC.

export const isoTime = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
