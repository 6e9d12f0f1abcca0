// The platforms perch can track, as a closed set.

export const PLATFORMS = ['x', 'bluesky'] as const;
export type Platform = (typeof PLATFORMS)[number];

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && (PLATFORMS as readonly string[]).includes(value);
}
