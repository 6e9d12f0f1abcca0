// Alert rules (migrations 016, 018): write and read them, and what a tracker's rule book needs:
// the rules' version (one number per batch), the enabled rules, and the batch's tags.
import type { Kysely, Selectable } from 'kysely';
import type { AlertRuleDefinition } from '../domain/alert-rules.ts';
import type { AlertRulesTable } from './alerts-schema.ts';
import { parseJson } from './json-column.ts';
import { runByShape } from './prepared.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface AlertRuleRecord {
  id: string;
  definition: AlertRuleDefinition;
  createdAt: number;
  updatedAt: number;
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

/** Throws when a stored column is not what perch writes (a check skips such a rule). */
function toDefinition(row: Selectable<AlertRulesTable>): AlertRuleDefinition {
  const parse = (text: string): unknown => JSON.parse(text);
  return {
    name: row.name,
    scope: parse(row.scope) as AlertRuleDefinition['scope'],
    metric: row.metric as AlertRuleDefinition['metric'],
    condition: parse(row.condition) as AlertRuleDefinition['condition'],
    cooldownMs: Number(row.cooldown_ms),
    recipients: parseJson<string[]>(row.recipients, []),
    enabled: Number(row.enabled) === 1,
  };
}

const toRecord = (row: Selectable<AlertRulesTable>): AlertRuleRecord => ({
  id: row.id,
  definition: toDefinition(row),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

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
    try {
      return { id: row.id, name: row.name, ok: true, definition: toDefinition(row) };
    } catch (error) {
      return { id: row.id, name: row.name, ok: false, error };
    }
  });
}
