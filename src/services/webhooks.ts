// Webhook use cases shared by the API and the CLI: define an endpoint (its URL checked, its
// secret sealed), change, delete, rotate the secret, send a test event, read its deliveries.
// Each change is audited in its own transaction.
import { PerchError } from '../domain/errors.ts';
import { EVENT_TYPES } from '../domain/events.ts';
import { newId } from '../domain/ids.ts';
import { deriveKey, seal } from '../domain/sealed-box.ts';
import { newWebhookSecret, parseWebhookUrl, ROTATION_OVERLAP_MS, webhookSealKey } from '../domain/webhooks.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import { listAttempts, type AttemptView } from '../storage/deliveries-repo.ts';
import { recordEvents } from '../storage/events-repo.ts';
import type { Store } from '../storage/store.ts';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookChange,
  type WebhookRecord,
} from '../storage/webhooks-repo.ts';
import { hostOf, isPrivateAddress, resolveAll } from '../webhooks/address-guard.ts';
import type { Clock } from '../clock.ts';
import { inTransactionOnce, type Once, type Outcome } from './idempotency.ts';

/** The most secrets that sign one delivery: the current one and those replaced in the last 24 h. */
const MAX_SIGNING_SECRETS = 10;

export interface WebhookDeps {
  store: Store;
  clock: Clock;
  keyHashSecret: string;
  allowPrivate: boolean;
  /** Wakes this process's deliverer, if it runs one. */
  notify?: () => void;
}

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  tags: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  /** Until when the previous secret signs too (after a rotation), or null. */
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookDefinition {
  url: string;
  events: readonly string[];
  tags?: readonly string[];
  description?: string | null;
}

export function toView(hook: WebhookRecord, now: number): WebhookView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    tags: hook.tags,
    description: hook.description,
    enabled: hook.enabled,
    disabledReason: hook.disabledReason,
    previousSecretUntil: hook.previousSecrets.some((p) => p.until > now) ? iso(hook.previousSecretUntil ?? 0) : null,
    createdAt: iso(hook.createdAt),
    updatedAt: iso(hook.updatedAt),
  };
}

/** The URL's scheme, and every address it resolves to now, unless private addresses are allowed. */
async function checkUrl(raw: string, allowPrivate: boolean): Promise<string> {
  const parsed = parseWebhookUrl(raw);
  const fail = (detail: string) =>
    new PerchError('invalid_webhook_url', detail, { errors: [{ field: 'body/url', message: detail }] });
  if (!parsed.ok) {
    throw fail(
      parsed.problem === 'scheme'
        ? 'Only http and https URLs can receive webhooks.'
        : parsed.problem === 'credentials'
          ? 'The URL must not hold a user name or password; receivers verify the signature instead.'
          : 'The URL is not valid.',
    );
  }
  if (!allowPrivate) {
    let addresses: string[];
    try {
      addresses = await resolveAll(hostOf(parsed.url));
    } catch {
      throw fail(`${parsed.url.hostname} does not resolve.`);
    }
    if (addresses.some(isPrivateAddress))
      throw new PerchError(
        'webhook_url_refused',
        `${parsed.url.hostname} is a loopback, private, link-local or multicast address; set WEBHOOK_ALLOW_PRIVATE=true to allow such URLs.`,
        { errors: [{ field: 'body/url', message: 'resolves to a private address' }] },
      );
  }
  return parsed.url.toString();
}

function checkTypes(events: readonly string[]): string[] {
  const unknown = events.filter((e) => e !== '*' && !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length > 0 || events.length === 0) {
    throw new PerchError(
      'validation_failed',
      `events must list event types or "*"; unknown: ${unknown.map((e) => `"${e.slice(0, 60)}"`).join(', ') || 'none given'}.`,
      { errors: [{ field: 'body/events', message: 'names an unknown event type' }] },
    );
  }
  return events.includes('*') ? ['*'] : [...new Set(events)];
}

export async function createWebhook(
  deps: WebhookDeps,
  definition: WebhookDefinition,
  actor: string | null,
): Promise<{ webhook: WebhookView; secret: string }> {
  const url = await checkUrl(definition.url, deps.allowPrivate);
  const events = checkTypes(definition.events);
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  const hook = await deps.store.db.transaction().execute(async (trx) => {
    const created = await insertWebhook(trx, {
      id: newId('wh'),
      url,
      events,
      tags: [...new Set(definition.tags ?? [])],
      description: definition.description ?? null,
      secret: seal(secret, webhookSealKey(deps.keyHashSecret)),
      now,
    });
    await writeAudit(trx, { actor, action: 'webhook.create', target: created.id, detail: { url, events }, at: now });
    return created;
  });
  return { webhook: toView(hook, now), secret };
}

export async function getWebhook(deps: WebhookDeps, id: string): Promise<WebhookRecord> {
  const hook = await findWebhook(deps.store.reader, id);
  if (!hook) throw new PerchError('webhook_not_found', `There is no webhook ${id.slice(0, 60)}.`);
  return hook;
}

export async function listWebhookViews(deps: WebhookDeps): Promise<WebhookView[]> {
  const now = deps.clock.now();
  return (await listWebhooks(deps.store.reader)).map((h) => toView(h, now));
}

export async function changeWebhook(
  deps: WebhookDeps,
  id: string,
  change: WebhookChange,
  actor: string | null,
): Promise<WebhookView> {
  const checked: WebhookChange = { ...change };
  if (change.url !== undefined) checked.url = await checkUrl(change.url, deps.allowPrivate);
  if (change.events !== undefined) checked.events = checkTypes(change.events);
  if (change.tags !== undefined) checked.tags = [...new Set(change.tags)];
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (trx) => {
    if (!(await updateWebhook(trx, id, checked, now)))
      throw new PerchError('webhook_not_found', `There is no webhook ${id.slice(0, 60)}.`);
    await writeAudit(trx, { actor, action: 'webhook.update', target: id, detail: { ...checked }, at: now });
  });
  if (change.enabled === true) deps.notify?.();
  return toView(await getWebhook(deps, id), now);
}

export async function removeWebhook(deps: WebhookDeps, id: string, actor: string | null): Promise<void> {
  const now = deps.clock.now();
  await deps.store.db.transaction().execute(async (trx) => {
    if (!(await deleteWebhook(trx, id)))
      throw new PerchError('webhook_not_found', `There is no webhook ${id.slice(0, 60)}.`);
    await writeAudit(trx, { actor, action: 'webhook.delete', target: id, at: now });
  });
}

/**
 * A new secret, returned once; the one it replaces keeps signing for 24 h, as does every other
 * replaced in the last 24 h (at most MAX_SIGNING_SECRETS sign at once). With `once`
 * (Idempotency-Key) a retry gets the first answer back instead of rotating again.
 */
export async function rotateSecret(
  deps: WebhookDeps,
  id: string,
  actor: string | null,
  once: Once | null = null,
): Promise<Outcome<{ secret: string; previousSecretUntil: string }>> {
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  const until = now + ROTATION_OVERLAP_MS;
  const sealed = seal(secret, webhookSealKey(deps.keyHashSecret));
  const onceDeps = {
    store: deps.store,
    clock: deps.clock,
    sealKey: deriveKey(deps.keyHashSecret, 'idempotent-responses'),
  };
  return inTransactionOnce(onceDeps, once, 200, async (trx) => {
    if (!(await rotateWebhookSecret(trx, id, sealed, until, now, MAX_SIGNING_SECRETS - 1)))
      throw new PerchError('webhook_not_found', `There is no webhook ${id.slice(0, 60)}.`);
    await writeAudit(trx, { actor, action: 'webhook.rotate_secret', target: id, at: now });
    return { secret, previousSecretUntil: new Date(until).toISOString() };
  });
}

/** Queues a webhook.test event to this endpoint alone. */
export async function sendTestEvent(deps: WebhookDeps, id: string): Promise<{ eventId: string }> {
  const hook = await getWebhook(deps, id);
  if (!hook.enabled)
    throw new PerchError(
      'webhook_disabled',
      `Webhook ${id} is disabled (${hook.disabledReason ?? 'by an admin'}); enable it first with PATCH {"enabled": true}.`,
    );
  const now = deps.clock.now();
  const [event] = await deps.store.db.transaction().execute((trx) =>
    recordEvents(
      trx,
      deps.store.caps,
      [
        {
          type: 'webhook.test',
          accountId: null,
          account: null,
          data: { webhookId: id, message: 'This is a test event from perch.' },
        },
      ],
      now,
      id,
    ),
  );
  deps.notify?.();
  return { eventId: event?.id ?? '' };
}

export async function deliveriesOf(
  deps: WebhookDeps,
  id: string,
  options: { before?: number; limit: number },
): Promise<AttemptView[]> {
  await getWebhook(deps, id);
  return listAttempts(deps.store.reader, id, options);
}
