// The last firing of each alert rule per account (migration 016): what a check consults for the
// cooldown, and what a rule's page shows as "when it fired". One row per (rule, account), so the
// table grows with the accounts a rule has ever fired for, not with time.
import { sql, type Kysely } from 'kysely';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { parseJson } from './json-column.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface AlertFiring {
  ruleId: string;
  accountId: number;
  firedAt: number;
  /** The event's data besides the account and the rule. */
  data: Record<string, unknown>;
}

export interface FiringView extends AlertFiring {
  /** How often the rule has fired for this account. */
  count: number;
}

const key = (ruleId: string, accountId: number) => `${ruleId}\u0000${accountId}`;

/** When each (rule, account) pair last fired; keyed by `firingKey`. */
export async function lastFirings(
  db: Db,
  ruleIds: readonly string[],
  accountIds: readonly number[],
): Promise<Map<string, number>> {
  const last = new Map<string, number>();
  if (ruleIds.length === 0 || accountIds.length === 0) return last;
  const rows = await db
    .selectFrom('alert_firings')
    .select(['rule_id', 'account_id', 'last_fired_at'])
    .where('rule_id', 'in', [...new Set(ruleIds)])
    .where('account_id', 'in', [...new Set(accountIds)])
    .execute();
  for (const row of rows) last.set(key(row.rule_id, Number(row.account_id)), Number(row.last_fired_at));
  return last;
}

export const firingKey = key;

export async function recordFirings(db: Db, caps: DialectCapabilities, firings: readonly AlertFiring[]): Promise<void> {
  const chunk = Math.max(1, Math.floor(caps.maxParameters / 5));
  for (let i = 0; i < firings.length; i += chunk) {
    await db
      .insertInto('alert_firings')
      .values(
        firings.slice(i, i + chunk).map((f) => ({
          rule_id: f.ruleId,
          account_id: f.accountId,
          last_fired_at: f.firedAt,
          fired_count: 1,
          last_data: JSON.stringify(f.data),
        })),
      )
      .onConflict((oc) =>
        oc.columns(['rule_id', 'account_id']).doUpdateSet((eb) => ({
          last_fired_at: eb.ref('excluded.last_fired_at'),
          last_data: eb.ref('excluded.last_data'),
          fired_count: sql`alert_firings.fired_count + 1`,
        })),
      )
      .execute();
  }
}

/** The rule's latest firings, newest first, one per account. */
export async function recentFirings(db: Db, ruleId: string, limit: number): Promise<FiringView[]> {
  const rows = await db
    .selectFrom('alert_firings')
    .selectAll()
    .where('rule_id', '=', ruleId)
    .orderBy('last_fired_at', 'desc')
    .orderBy('account_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    ruleId: row.rule_id,
    accountId: Number(row.account_id),
    firedAt: Number(row.last_fired_at),
    data: parseJson<Record<string, unknown>>(row.last_data, {}),
    count: Number(row.fired_count),
  }));
}

/** The platform and username of each account row id given (for firings and rule scopes). */
export async function accountNames(
  db: Db,
  accountIds: readonly number[],
): Promise<Map<number, { platform: string; username: string }>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'platform', 'username'])
    .where('id', 'in', [...new Set(accountIds)])
    .execute();
  return new Map(rows.map((r) => [Number(r.id), { platform: r.platform, username: r.username }]));
}
