// Maps account rows to the domain's Account at the repository boundary (and nowhere else).
import type { Selectable } from 'kysely';
import type { Account, AccountMetrics, AccountProfile, AccountStatus, Rename } from '../domain/account.ts';
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
    analysis: parseJson<Record<string, unknown> | null>(row.analysis, null),
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
