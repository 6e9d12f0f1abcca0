// The last firing of each alert rule per account (migration 016): what a check consults for the
// cooldown, and what a rule's page shows as "when it fired". One row per (rule, account), so the
// table grows with the accounts a rule has ever fired for, not with time.
import { sql, type Kysely } from 'kysely';
import type { DialectCapabilities } from './dialects/capabilities.ts';
import { parseJson } from './json-column.ts';
import { padded, runByShape } from './prepared.ts';
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
  const rules = padded([...new Set(ruleIds)]);
  const accounts = padded([...new Set(accountIds)]);
  const { rows } = await runByShape<{ rule_id: string; account_id: number; last_fired_at: number }>(
    db,
    `alert-last-firings:${rules.length}:${accounts.length}`,
    [...rules, ...accounts],
    (a) =>
      db
        .selectFrom('alert_firings')
        .select(['rule_id', 'account_id', 'last_fired_at'])
        .where('rule_id', 'in', a.slice(0, rules.length) as string[])
        .where('account_id', 'in', a.slice(rules.length) as number[]),
  );
  for (const row of rows) last.set(key(row.rule_id, Number(row.account_id)), Number(row.last_fired_at));
  return last;
}

export const firingKey = key;

export async function recordFirings(db: Db, caps: DialectCapabilities, firings: readonly AlertFiring[]): Promise<void> {
  const chunk = Math.max(1, Math.floor(caps.maxParameters / 4));
  for (let i = 0; i < firings.length; i += chunk) {
    const part = firings.slice(i, i + chunk);
    const args = part.flatMap((f) => [f.ruleId, f.accountId, f.firedAt, JSON.stringify(f.data)]);
    await runByShape(db, `alert-firings:${part.length}`, args, (a) =>
      db
        .insertInto('alert_firings')
        .values(
          Array.from({ length: a.length / 4 }, (_, r) => ({
            rule_id: a[4 * r] as string,
            account_id: a[4 * r + 1] as number,
            last_fired_at: a[4 * r + 2] as number,
            fired_count: sql<number>`1`,
            last_data: a[4 * r + 3] as string,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['rule_id', 'account_id']).doUpdateSet((eb) => ({
            last_fired_at: eb.ref('excluded.last_fired_at'),
            last_data: eb.ref('excluded.last_data'),
            fired_count: sql`alert_firings.fired_count + 1`,
          })),
        ),
    );
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
