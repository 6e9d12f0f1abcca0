// Alert rule use cases shared by the API, the dashboard and the `perch alerts` command: define a
// rule (checked field by field, its accounts known), list, read with when it fired, change and
// delete. Each change is audited in its own transaction; the tracker weighs the rules.
import type { Clock } from '../clock.ts';
import { checkAlertRule, type AlertRuleDefinition } from '../domain/alert-rules.ts';
import { PerchError } from '../domain/errors.ts';
import { accountPublicId, newId } from '../domain/ids.ts';
import { formatDuration } from '../domain/units.ts';
import { accountNames, recentFirings } from '../storage/alert-firings-repo.ts';
import {
  deleteAlertRule,
  findAlertRule,
  insertAlertRule,
  listAlertRules,
  updateAlertRule,
  type AlertRuleRecord,
} from '../storage/alert-rules-repo.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import type { Executor, Store } from '../storage/store.ts';

export interface AlertDeps {
  store: Store;
  clock: Clock;
}

export interface AlertRuleView {
  id: string;
  name: string;
  scope: { tags?: string[]; platform?: string; accounts?: string[] };
  metric: string;
  /** null only when the stored condition cannot be read (see `problem`). */
  condition: AlertRuleDefinition['condition'] | null;
  /** A duration such as "24h". */
  cooldown: string;
  recipients: string[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** Only for a rule whose stored fields perch cannot read (a hand-edited store): what to send to repair it. */
  problem?: { unreadable: string[]; detail: string };
}

export interface FiringView {
  account: { id: string; platform: string | null; username: string | null };
  firedAt: string;
  /** How often it fired for this account. */
  count: number;
  value: number | null;
  data: Record<string, unknown>;
}

/** `86400000` → "24h": hours before days up to 48 h. */
export function cooldownText(ms: number): string {
  return formatDuration(ms, { daysAboveMs: 2 * 86_400_000 });
}

export function toAlertView(record: AlertRuleRecord): AlertRuleView {
  const { definition: d } = record;
  const scope: AlertRuleView['scope'] = {};
  if (d.scope.tags) scope.tags = d.scope.tags;
  if (d.scope.platform) scope.platform = d.scope.platform;
  if (d.scope.accounts) scope.accounts = d.scope.accounts.map(accountPublicId);
  return {
    id: record.id,
    name: d.name,
    scope,
    metric: d.metric,
    condition: record.unreadable?.includes('condition') ? null : d.condition,
    cooldown: cooldownText(d.cooldownMs),
    recipients: d.recipients,
    enabled: d.enabled,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
    ...(record.unreadable ? { problem: problemOf(record.unreadable) } : {}),
  };
}

/** The API's names of stored fields that cannot be read. */
const API_FIELDS: Record<string, string> = { cooldownMs: 'cooldown' };
const apiFields = (fields: readonly string[]) => fields.map((f) => API_FIELDS[f] ?? f);

function problemOf(unreadable: readonly string[]): NonNullable<AlertRuleView['problem']> {
  const fields = apiFields(unreadable);
  return {
    unreadable: fields,
    detail: `The stored ${fields.join(', ')} of this rule cannot be read, so checks skip it; change the rule with a new ${fields.join(', ')} to repair it, or delete it.`,
  };
}

const notFound = (id: string) => new PerchError('alert_not_found', `There is no alert rule ${id.slice(0, 60)}.`);

/** The definition `input` makes (on `base` for a change), or a 400 naming every bad field. */
async function checked(db: Executor, input: unknown, base?: AlertRuleDefinition): Promise<AlertRuleDefinition> {
  const result = checkAlertRule(input, base);
  if (!result.ok)
    throw new PerchError('validation_failed', 'The alert rule is not valid; see errors for each field.', {
      errors: result.errors,
    });
  const accounts = result.value.scope.accounts ?? [];
  const known = await accountNames(db, accounts);
  const errors = accounts.flatMap((id, i) =>
    known.has(id) ? [] : [{ field: `body/scope/accounts/${i}`, message: `${accountPublicId(id)} is not tracked` }],
  );
  if (errors.length > 0)
    throw new PerchError('validation_failed', 'The scope names accounts perch does not know.', { errors });
  return result.value;
}

export async function createAlertRule(deps: AlertDeps, input: unknown, actor: string | null): Promise<AlertRuleView> {
  const now = deps.clock.now();
  const record = await deps.store.db.transaction().execute(async (trx) => {
    const definition = await checked(trx, input);
    const created: AlertRuleRecord = { id: newId('alr'), definition, createdAt: now, updatedAt: now };
    await insertAlertRule(trx, created);
    await writeAudit(trx, {
      actor,
      action: 'alert.create',
      target: created.id,
      detail: { name: definition.name },
      at: now,
    });
    return created;
  });
  return toAlertView(record);
}

export async function listAlertRuleViews(deps: AlertDeps): Promise<AlertRuleView[]> {
  return (await listAlertRules(deps.store.reader)).map(toAlertView);
}

export async function getAlertRule(deps: AlertDeps, id: string): Promise<AlertRuleView> {
  const record = await findAlertRule(deps.store.reader, id);
  if (!record) throw notFound(id);
  return toAlertView(record);
}

/** The rule's latest firings, newest first, one per account (with how often it fired there). */
export async function firingsOf(deps: AlertDeps, id: string, limit = 50): Promise<FiringView[]> {
  const firings = await recentFirings(deps.store.reader, id, limit);
  const names = await accountNames(
    deps.store.reader,
    firings.map((f) => f.accountId),
  );
  return firings.map((f) => {
    const name = names.get(f.accountId);
    return {
      account: { id: accountPublicId(f.accountId), platform: name?.platform ?? null, username: name?.username ?? null },
      firedAt: new Date(f.firedAt).toISOString(),
      count: f.count,
      value: typeof f.data.value === 'number' ? f.data.value : null,
      data: f.data,
    };
  });
}

export async function changeAlertRule(
  deps: AlertDeps,
  id: string,
  change: unknown,
  actor: string | null,
): Promise<AlertRuleView> {
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (trx) => {
    const current = await findAlertRule(trx, id);
    if (!current) throw notFound(id);
    // A field that cannot be read is not kept by a change: the change must bring it.
    const missing = apiFields(current.unreadable ?? []).filter(
      (field) => typeof change !== 'object' || change === null || !(field in change),
    );
    if (missing.length > 0)
      throw new PerchError('validation_failed', 'The stored rule has fields that cannot be read; send them anew.', {
        errors: missing.map((field) => ({
          field: `body/${field}`,
          message: 'the stored value cannot be read: send one',
        })),
      });
    const definition = await checked(trx, change, current.definition);
    await updateAlertRule(trx, id, definition, now);
    await writeAudit(trx, { actor, action: 'alert.update', target: id, detail: { name: definition.name }, at: now });
  });
  return getAlertRule(deps, id);
}

export async function removeAlertRule(deps: AlertDeps, id: string, actor: string | null): Promise<void> {
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (trx) => {
    if (!(await deleteAlertRule(trx, id))) throw notFound(id);
    await writeAudit(trx, { actor, action: 'alert.delete', target: id, at: now });
  });
}
