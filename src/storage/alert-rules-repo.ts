// Alert rules and their scope index (migration 016): write a rule with its index rows, read them,
// and find the rules whose scope can match a checked batch through the index alone.
import type { Kysely, Selectable } from 'kysely';
import { scopeKeys, type AlertRuleDefinition } from '../domain/alert-rules.ts';
import type { AlertRulesTable } from './alerts-schema.ts';
import { parseJson } from './json-column.ts';
import { padded, runByShape } from './prepared.ts';
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

async function writeScopeRows(db: Db, id: string, definition: AlertRuleDefinition): Promise<void> {
  await db.deleteFrom('alert_rule_scopes').where('rule_id', '=', id).execute();
  const rows = scopeKeys(definition.scope).map((k) => ({ kind: k.kind, value: k.value, rule_id: id }));
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('alert_rule_scopes')
      .values(rows.slice(i, i + 200))
      .execute();
}

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
  await writeScopeRows(db, record.id, record.definition);
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
  if (Number(result.numUpdatedRows) === 0) return false;
  await writeScopeRows(db, id, definition);
  return true;
}

/** Deletes the rule, its index rows and its firings; false when there is no such rule. */
export async function deleteAlertRule(db: Db, id: string): Promise<boolean> {
  await db.deleteFrom('alert_rule_scopes').where('rule_id', '=', id).execute();
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

/**
 * The tags of the batch's accounts and the enabled rules whose index rows name the batch's
 * platform, one of its accounts or tags, or every account. Two indexed reads, whatever the number
 * of rules and accounts; the full scope is checked by the caller (domain `scopeMatches`).
 */
export async function rulesForBatch(
  db: Db,
  platform: string,
  accountIds: readonly number[],
): Promise<{ tags: Map<number, string[]>; rules: FoundRule[] }> {
  const tags = new Map<number, string[]>();
  if (accountIds.length === 0) return { tags, rules: [] };
  const ids = padded(accountIds);
  const { rows: tagRows } = await runByShape<{ account_id: number; tag: string }>(
    db,
    `alert-tags:${ids.length}`,
    ids,
    (a) =>
      db
        .selectFrom('account_tags')
        .select(['account_id', 'tag'])
        .where('account_id', 'in', a as number[]),
  );
  for (const row of tagRows) {
    const id = Number(row.account_id);
    const list = tags.get(id) ?? [];
    list.push(row.tag);
    tags.set(id, list);
  }
  const tagValues = padded([...new Set(tagRows.map((r) => r.tag))]);
  const names = ids.map(String);
  const args = [platform, ...names, ...tagValues];
  const { rows } = await runByShape<Selectable<AlertRulesTable>>(
    db,
    `alert-rules:${names.length}:${tagValues.length}`,
    args,
    (a) => {
      const [p, ...rest] = a as string[];
      const accounts = rest.slice(0, names.length);
      const tagged = rest.slice(names.length);
      return db
        .selectFrom('alert_rules')
        .selectAll()
        .where('enabled', '=', 1)
        .where('id', 'in', (qb) =>
          qb
            .selectFrom('alert_rule_scopes')
            .select('rule_id')
            .where((eb) =>
              eb.or([
                eb.and([eb('kind', '=', 'all'), eb('value', '=', '')]),
                eb.and([eb('kind', '=', 'platform'), eb('value', '=', p ?? '')]),
                eb.and([eb('kind', '=', 'account'), eb('value', 'in', accounts)]),
                ...(tagged.length > 0 ? [eb.and([eb('kind', '=', 'tag'), eb('value', 'in', tagged)])] : []),
              ]),
            ),
        )
        .orderBy('id');
    },
  );
  const rules = rows.map((row): FoundRule => {
    try {
      return { id: row.id, name: row.name, ok: true, definition: toDefinition(row) };
    } catch (error) {
      return { id: row.id, name: row.name, ok: false, error };
    }
  });
  return { tags, rules };
}
