// Alert rules (migrations 016, 018): write and read them, and what a tracker's rule book needs:
// the rules' version (one number per batch) and the enabled rules. A stored field that is not
// what perch writes is named, not thrown: the rule is still listed and can be repaired.
import type { Kysely, Selectable } from 'kysely';
import {
  isAlertMetric,
  storedCondition,
  storedRecipients,
  storedScope,
  type AlertRuleDefinition,
} from '../domain/alert-rules.ts';
import type { AlertRulesTable } from './alerts-schema.ts';
import { runByShape } from './prepared.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface AlertRuleRecord {
  id: string;
  definition: AlertRuleDefinition;
  createdAt: number;
  updatedAt: number;
  /**
   * The stored fields that are not what perch writes (a hand-edited store): their place in
   * `definition` holds a stand-in that matches nothing, and a check skips the rule.
   */
  unreadable?: string[];
}

/** A rule as a check finds it: its definition, or why it could not be read (it is skipped). */
export type FoundRule = { id: string; name: string } & (
  { ok: true; definition: AlertRuleDefinition } | { ok: false; error: unknown }
);

const columnsOf = (d: AlertRuleDefinition) => ({
  name: d.name,
  scope: JSON.stringify(d.scope),
  metric: d.metric,
  condition: JSON.stringify(d.condition),
  cooldown_ms: d.cooldownMs,
  recipients: JSON.stringify(d.recipients),
  enabled: d.enabled ? 1 : 0,
});

type Stored<T> = { value: T } | null;
const stored = <T>(text: string | null, read: (v: unknown) => T | null): Stored<T> => {
  try {
    const value = read(text === null ? null : JSON.parse(text));
    return value === null ? null : { value };
  } catch {
    return null;
  }
};

/**
 * The definition of a stored rule. A field that is not what perch writes is named in `unreadable`
 * and stands in as something that matches nothing (no accounts, a level no value passes), so the
 * rule can still be listed, shown, repaired by a change or deleted.
 */
function toDefinition(row: Selectable<AlertRulesTable>): { definition: AlertRuleDefinition; unreadable: string[] } {
  const unreadable: string[] = [];
  const or = <T>(field: string, found: Stored<T>, standIn: T): T => {
    if (found) return found.value;
    unreadable.push(field);
    return standIn;
  };
  const cooldownMs = Number(row.cooldown_ms);
  const definition: AlertRuleDefinition = {
    name: row.name,
    scope: or('scope', stored(row.scope, storedScope), { accounts: [] }),
    metric: or('metric', isAlertMetric(row.metric) ? { value: row.metric } : null, 'followers'),
    condition: or('condition', stored(row.condition, storedCondition), { above: Number.MAX_VALUE }),
    cooldownMs: or('cooldownMs', Number.isSafeInteger(cooldownMs) && cooldownMs >= 0 ? { value: cooldownMs } : null, 0),
    recipients: or(
      'recipients',
      row.recipients === null ? { value: [] } : stored(row.recipients, storedRecipients),
      [],
    ),
    enabled: Number(row.enabled) === 1,
  };
  return { definition, unreadable };
}

const toRecord = (row: Selectable<AlertRulesTable>): AlertRuleRecord => {
  const { definition, unreadable } = toDefinition(row);
  return {
    id: row.id,
    definition,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ...(unreadable.length > 0 ? { unreadable } : {}),
  };
};

export async function insertAlertRule(db: Db, record: AlertRuleRecord): Promise<void> {
  await db
    .insertInto('alert_rules')
    .values({
      id: record.id,
      ...columnsOf(record.definition),
      created_at: record.createdAt,
      updated_at: record.updatedAt,
    })
    .execute();
}

/** False when there is no such rule. */
export async function updateAlertRule(
  db: Db,
  id: string,
  definition: AlertRuleDefinition,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('alert_rules')
    .set({ ...columnsOf(definition), updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes the rule and its firings; false when there is no such rule. */
export async function deleteAlertRule(db: Db, id: string): Promise<boolean> {
  await db.deleteFrom('alert_firings').where('rule_id', '=', id).execute();
  const result = await db.deleteFrom('alert_rules').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function findAlertRule(db: Db, id: string): Promise<AlertRuleRecord | null> {
  const row = await db.selectFrom('alert_rules').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

/** Every rule, oldest first (rules are few: a person writes each). */
export async function listAlertRules(db: Db): Promise<AlertRuleRecord[]> {
  const rows = await db.selectFrom('alert_rules').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toRecord);
}

/** The rules' version: the store adds one at every change to a rule, whoever makes it (migration 018). */
export async function alertRulesVersion(db: Db): Promise<number> {
  const { rows } = await runByShape<{ n: number }>(db, 'alert-rules-version', [], () =>
    db.selectFrom('change_counters').select('n').where('name', '=', 'alert_rules'),
  );
  return Number(rows[0]?.n ?? 0);
}

/** Every enabled rule, each with its definition or why it cannot be read (a check skips it). */
export async function enabledAlertRules(db: Db): Promise<FoundRule[]> {
  const rows = await db.selectFrom('alert_rules').selectAll().where('enabled', '=', 1).orderBy('id').execute();
  return rows.map((row): FoundRule => {
    const { definition, unreadable } = toDefinition(row);
    return unreadable.length === 0
      ? { id: row.id, name: row.name, ok: true, definition }
      : {
          id: row.id,
          name: row.name,
          ok: false,
          error: new Error(`its stored ${unreadable.join(', ')} cannot be read`),
        };
  });
}
