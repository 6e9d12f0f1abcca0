// Webhook endpoints: their definition, their (sealed) secrets and whether they are failing.
import type { Kysely } from 'kysely';
import { parseJson, parseStrings } from './json-column.ts';
import type { Database } from './schema.ts';
import type { WebhooksTable } from './events-schema.ts';

type Db = Kysely<Database>;

export interface WebhookRecord {
  id: string;
  url: string;
  events: string[];
  tags: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  /** Sealed secrets: the current one, and every one replaced in the last 24 h, each signing until its `until`. */
  secret: string;
  previousSecrets: PreviousSecret[];
  /** When the last of the previous secrets stops signing. */
  previousSecretUntil: number | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

function toRecord(row: WebhooksTable): WebhookRecord {
  return {
    id: row.id,
    url: row.url,
    events: parseStrings(row.events),
    tags: parseStrings(row.tags),
    description: row.description,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    secret: row.secret,
    previousSecrets: previousSecretsOf(row),
    previousSecretUntil: row.previous_secret_until === null ? null : Number(row.previous_secret_until),
    failingSince: row.failing_since === null ? null : Number(row.failing_since),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export async function insertWebhook(
  db: Db,
  hook: {
    id: string;
    url: string;
    events: readonly string[];
    tags: readonly string[];
    description: string | null;
    secret: string;
    now: number;
  },
): Promise<WebhookRecord> {
  const row: WebhooksTable = {
    id: hook.id,
    url: hook.url,
    events: JSON.stringify(hook.events),
    tags: JSON.stringify(hook.tags),
    description: hook.description,
    enabled: 1,
    disabled_reason: null,
    secret: hook.secret,
    previous_secret: null,
    previous_secret_until: null,
    failing_since: null,
    created_at: hook.now,
    updated_at: hook.now,
  };
  await db.insertInto('webhooks').values(row).execute();
  return toRecord(row);
}

export async function findWebhook(db: Db, id: string): Promise<WebhookRecord | null> {
  const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function findWebhooks(db: Db, ids: readonly string[]): Promise<Map<string, WebhookRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('webhooks').selectAll().where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, toRecord(row)]));
}

export async function listWebhooks(db: Db): Promise<WebhookRecord[]> {
  const rows = await db.selectFrom('webhooks').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toRecord);
}

export interface WebhookChange {
  url?: string;
  events?: readonly string[];
  tags?: readonly string[];
  description?: string | null;
  enabled?: boolean;
}

export async function updateWebhook(db: Db, id: string, change: WebhookChange, now: number): Promise<boolean> {
  const values = {
    url: change.url,
    events: change.events === undefined ? undefined : JSON.stringify(change.events),
    tags: change.tags === undefined ? undefined : JSON.stringify(change.tags),
    description: change.description,
    enabled: change.enabled === undefined ? undefined : change.enabled ? 1 : 0,
    // Enabling again starts afresh: the old failures no longer count towards giving up.
    ...(change.enabled === true ? { disabled_reason: null, failing_since: null } : {}),
    ...(change.enabled === false ? { disabled_reason: 'disabled by an admin' } : {}),
    updated_at: now,
  };
  const defined = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  const result = await db.updateTable('webhooks').set(defined).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface PreviousSecret {
  sealed: string;
  until: number;
}

/**
 * The replaced secrets still signing. The column holds a JSON list of them; a store written before
 * the list holds one sealed secret (base64url, which never starts with `[`) until the row's `until`.
 */
function previousSecretsOf(row: Pick<WebhooksTable, 'previous_secret' | 'previous_secret_until'>): PreviousSecret[] {
  const stored = row.previous_secret;
  if (stored === null) return [];
  if (!stored.startsWith('[')) return [{ sealed: stored, until: Number(row.previous_secret_until ?? 0) }];
  return parseJson<PreviousSecret[]>(stored, []);
}

/**
 * Makes `sealedSecret` the secret; the one it replaces joins those still signing, until
 * `overlapUntil`, and those whose time is over are dropped (the newest `keep` are kept at most).
 * The first update takes the row's lock on PostgreSQL, so two rotations at once keep both secrets.
 */
export async function rotateWebhookSecret(
  db: Db,
  id: string,
  sealedSecret: string,
  overlapUntil: number,
  now: number,
  keep: number,
): Promise<boolean> {
  const locked = await db.updateTable('webhooks').set({ updated_at: now }).where('id', '=', id).executeTakeFirst();
  if (Number(locked.numUpdatedRows) === 0) return false;
  const row = await db
    .selectFrom('webhooks')
    .select(['secret', 'previous_secret', 'previous_secret_until'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const previous = [
    ...previousSecretsOf(row).filter((p) => p.until > now),
    { sealed: row.secret, until: overlapUntil },
  ].slice(-keep);
  await db
    .updateTable('webhooks')
    .set({
      secret: sealedSecret,
      previous_secret: JSON.stringify(previous),
      previous_secret_until: Math.max(...previous.map((p) => p.until)),
    })
    .where('id', '=', id)
    .execute();
  return true;
}

/** Deletes the endpoint and its queue; its attempts log goes with it. */
export async function deleteWebhook(db: Db, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
  await db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
  await db.deleteFrom('webhook_attempts').where('webhook_id', '=', id).execute();
  return Number(result.numDeletedRows) > 0;
}

/** After an attempt: a success clears the failure run; a failure starts one, or disables the endpoint. */
export async function recordEndpointOutcome(
  db: Db,
  id: string,
  outcome: { ok: true } | { ok: false; disableReason: string | null },
  now: number,
): Promise<void> {
  if (outcome.ok) {
    await db
      .updateTable('webhooks')
      .set({ failing_since: null })
      .where('id', '=', id)
      .where('failing_since', 'is not', null)
      .execute();
    return;
  }
  await db
    .updateTable('webhooks')
    .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
    .where('id', '=', id)
    .execute();
  if (outcome.disableReason !== null) {
    await db
      .updateTable('webhooks')
      .set({ enabled: 0, disabled_reason: outcome.disableReason, updated_at: now })
      .where('id', '=', id)
      .execute();
  }
}

/** Endpoints perch disabled (410 or 5 days of failures), for health. */
export async function listDisabledByPerch(db: Db): Promise<{ id: string; reason: string }[]> {
  const rows = await db
    .selectFrom('webhooks')
    .select(['id', 'disabled_reason'])
    .where('enabled', '=', 0)
    .where('disabled_reason', '<>', 'disabled by an admin')
    .execute();
  return rows.map((r) => ({ id: r.id, reason: r.disabled_reason ?? '' }));
}
