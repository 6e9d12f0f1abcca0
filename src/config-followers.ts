// The follower-list settings of the configuration (DESIGN §11; config.ts calls this with its own readers).
import { TAG_PATTERN } from './domain/account.ts';

export interface FollowerSettings {
  /** A full pass over each enabled account's followers this often (FOLLOWER_LIST_INTERVAL). */
  readonly followerListIntervalMs: number;
  /** Above this many followers an account's list is not kept (FOLLOWER_LIST_MAX). */
  readonly followerListMax: number;
  /** Accounts with one of these tags have their follower list on, on any platform (FOLLOWER_LIST_TAGS). */
  readonly followerListTags: readonly string[];
}

export function followerSettings(
  text: (name: string) => string | null,
  duration: (name: string, fallback: string, minMs?: number) => number,
  integer: (name: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): FollowerSettings {
  const tags = (text('FOLLOWER_LIST_TAGS') ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  const bad = tags.filter((tag) => !TAG_PATTERN.test(tag));
  if (bad.length > 0) problems.push(`FOLLOWER_LIST_TAGS must be tags separated by commas (not "${bad.join('", "')}")`);
  return {
    followerListIntervalMs: duration('FOLLOWER_LIST_INTERVAL', '1d', 60_000),
    followerListMax: integer('FOLLOWER_LIST_MAX', 100_000, 0, 100_000_000),
    followerListTags: [...new Set(tags)],
  };
}
