// The arithmetic the account analysis is built from: counts made safe, rounding, rankings of
// entities and of posts. Pure; the definitions they serve are in analysis.ts.
import type { AnalysisPost, TopPost } from './post-figures.ts';

const TOP_ENTITIES = 10;
const TOP_POSTS = 5;
const TOP_POST_TEXT = 280;

export function topPosts(posts: readonly AnalysisPost[]): TopPost[] {
  return posts
    .map((post) => ({ post, score: 5 * count(post.replies) + 3 * count(post.reposts) + 2 * count(post.likes) }))
    .sort((a, b) => b.score - a.score || b.post.createdAt - a.post.createdAt || compareText(a.post.id, b.post.id))
    .slice(0, TOP_POSTS)
    .map(({ post, score }) => ({
      id: post.id,
      createdAt: iso(post.createdAt),
      url: post.url,
      text: clipText(post.text, TOP_POST_TEXT),
      likes: count(post.likes),
      reposts: count(post.reposts),
      replies: count(post.replies),
      quotes: count(post.quotes),
      score,
    }));
}

/** Adds each distinct value of one post once, lower-case and without its marker. */
export function tally(counts: Map<string, number>, values: readonly string[], marker: RegExp | null): void {
  const seen = new Set<string>();
  for (const value of values) {
    const trimmed = value.trim();
    const key = (marker === null ? trimmed : trimmed.replace(marker, '')).toLowerCase();
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
}

export function top(counts: Map<string, number>): [string, number][] {
  return [...counts].sort(byCountThenName).slice(0, TOP_ENTITIES);
}

export function byCountThenName(a: [string, number], b: [string, number]): number {
  return b[1] - a[1] || compareText(a[0], b[0]);
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A count as a whole number in [0, 2^53): anything else (NaN, negative, Infinity) is 0, fractions are floored. */
export function count(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.floor(Math.min(value, Number.MAX_SAFE_INTEGER)) : 0;
}

/** Rounded to `decimals`, never -0 (so deep equality and JSON agree). */
export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor + 0;
}

/** ISO 8601, clamped to the range a Date can hold so that no input makes it throw. */
export function iso(ms: number): string {
  return new Date(Math.min(8.64e15, Math.max(-8.64e15, ms))).toISOString();
}

/** At most `max` characters, the last one an ellipsis when cut, never half a surrogate pair. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return `${text.slice(0, end)}…`;
}
