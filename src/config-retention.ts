// Each retained table's default retention and the setting that changes it.
import type { RetainedTable } from './config-shape.ts';

export const RETENTION_DEFAULTS: Record<RetainedTable, string> = {
  history: '400d',
  audit: '365d',
  imports: '90d',
  idempotency: '24h',
  events: '30d',
  followers: '90d',
  mail: '30d',
};
/** Settings not named `<NAME>_RETENTION`: events keep the name they had before they joined the list. */
const RETENTION_SETTINGS: Partial<Record<RetainedTable, string>> = {
  events: 'EVENT_RETENTION',
  followers: 'FOLLOWER_RETENTION',
};

/** The environment variable that sets a table's retention. */
export const retentionSetting = (table: RetainedTable): string =>
  RETENTION_SETTINGS[table] ?? `${table.toUpperCase()}_RETENTION`;
