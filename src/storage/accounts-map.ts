// Maps account rows to the domain's Account at the repository boundary (and nowhere else).
import type { Selectable } from 'kysely';
import type { Account, AccountMetrics, AccountProfile, AccountStatus, Rename } from '../domain/account.ts';
import type { AccountAnalysis } from '../domain/analysis.ts';
import { accountPublicId } from '../domain/ids.ts';
import type { Platform } from '../domain/platforms.ts';
import type { AccountsTable } from './schema.ts';
import { parseJson } from './json-column.ts';
import { isoTime } from './times.ts';

/** The columns an Account is made of; bookkeeping such as leases is left in the table. */
export const ACCOUNT_COLUMNS = [
  'id',
  'platform',
  'username',
  'platform_user_id',
  'status',
  'status_reason',
  'tags',
  'note',
  'profile',
  'metrics',
  'analysis',
  'renames',
  'tracked_since',
  'last_checked_at',
  'next_check_at',
  'consecutive_failures',
  'last_error',
] as const;

export type AccountRow = Pick<Selectable<AccountsTable>, (typeof ACCOUNT_COLUMNS)[number]>;

export function toAccount(row: AccountRow): Account {
  return {
    id: accountPublicId(row.id),
    platform: row.platform as Platform,
    username: row.username,
    platformUserId: row.platform_user_id,
    status: row.status as AccountStatus,
    statusReason: row.status_reason,
    tags: parseJson<string[]>(row.tags, []),
    note: row.note,
    profile: parseJson<AccountProfile | null>(row.profile, null),
    metrics: parseJson<AccountMetrics | null>(row.metrics, null),
    analysis: parseJson<AccountAnalysis | null>(row.analysis, null),
    tracking: {
      trackedSince: new Date(row.tracked_since).toISOString(),
      lastCheckedAt: isoTime(row.last_checked_at),
      nextCheckAt: isoTime(row.next_check_at),
      consecutiveFailures: row.consecutive_failures,
      lastError: row.last_error,
    },
    renames: parseJson<Rename[]>(row.renames, []),
  };
}

// The API's hottest answer, one account, is written straight from the stored text. Profile,
// metrics, analysis, tags and renames are JSON that perch wrote itself (JSON.stringify of the
// domain's values, which have the record's shape), so parsing them only to serialize them again
// cost a third of each lookup. Only `analysis.stale` changes at read time: perch writes it as the
// analysis's last member, so it is replaced at the end of the text.
const STALE_TAIL = { false: ',"stale":false}', true: ',"stale":true}' } as const;

const jsonString = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));
const jsonTime = (ms: number | null): string => (ms === null ? 'null' : `"${new Date(ms).toISOString()}"`);
/** A cheap guard against a truncated or hand-edited column: the text must at least open and close as it should. */
const wraps = (text: string, open: string, close: string): boolean => text.startsWith(open) && text.endsWith(close);

/**
 * The JSON of `toAccount(row)` as the API writes it (member for member, in the same order), with
 * `analysis.stale` set by `isStale(metrics.observedAt)`; null when a stored column is not in the
 * form this relies on, for the caller to map and serialize the row the ordinary way instead.
 */
export function toAccountJson(row: AccountRow, isStale: (observedAt: string) => boolean): string | null {
  const { profile, metrics, tags, renames } = row;
  let { analysis } = row;
  if (!wraps(tags, '[', ']') || !wraps(renames, '[', ']')) return null;
  if ((profile !== null && !wraps(profile, '{', '}')) || (metrics !== null && !wraps(metrics, '{', '}'))) return null;
  if (analysis !== null) {
    const stored = analysis.endsWith(STALE_TAIL.false) ? false : analysis.endsWith(STALE_TAIL.true) ? true : null;
    if (stored === null || !analysis.startsWith('{')) return null;
    if (metrics !== null) {
      const observedAt = parseJson<{ observedAt?: unknown } | null>(metrics, null)?.observedAt;
      if (typeof observedAt !== 'string') return null;
      const stale = isStale(observedAt);
      if (stale !== stored) analysis = analysis.slice(0, -STALE_TAIL[`${stored}`].length) + STALE_TAIL[`${stale}`];
    }
  }
  return (
    `{"id":"${accountPublicId(row.id)}","platform":${jsonString(row.platform)},` +
    `"username":${jsonString(row.username)},"platformUserId":${jsonString(row.platform_user_id)},` +
    `"status":${jsonString(row.status)},"statusReason":${jsonString(row.status_reason)},"tags":${tags},` +
    `"note":${jsonString(row.note)},"profile":${profile ?? 'null'},"metrics":${metrics ?? 'null'},` +
    `"analysis":${analysis ?? 'null'},"tracking":{"trackedSince":${jsonTime(row.tracked_since)},` +
    `"lastCheckedAt":${jsonTime(row.last_checked_at)},"nextCheckAt":${jsonTime(row.next_check_at)},` +
    `"consecutiveFailures":${row.consecutive_failures},"lastError":${jsonString(row.last_error)}},` +
    `"renames":${renames}}`
  );
}
