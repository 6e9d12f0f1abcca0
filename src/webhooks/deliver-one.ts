// One unit of work: send one claimed delivery, signed, through the outbound guard, and write its
// outcome (delivered, retry later with jitter, or failed) and the endpoint's state in one transaction.
import type { Logger } from 'pino';
import { open } from '../domain/sealed-box.ts';
import { disableReason, nextRetryAt, parseWebhookUrl, type AttemptOutcome } from '../domain/webhooks.ts';
import { finishAttempt, type ClaimedDelivery } from '../storage/deliveries-repo.ts';
import type { Store } from '../storage/store.ts';
import { recordEndpointOutcome, type WebhookRecord } from '../storage/webhooks-repo.ts';
import type { SleepingClock } from '../clock.ts';
import { postJson } from './outbound.ts';
import { signedHeaders } from './sign.ts';

export interface DeliverySettings {
  timeoutMs: number;
  retryScheduleMs: readonly number[];
  allowPrivate: boolean;
  /** Opens the sealed secrets. */
  sealKey: Buffer;
}

export interface DeliveryMetrics {
  attempt(outcome: 'delivered' | 'retry' | 'failed', seconds: number): void;
}

export interface DeliveryContext {
  store: Store;
  clock: SleepingClock;
  settings: DeliverySettings;
  metrics: DeliveryMetrics;
  logger: Logger;
  random: () => number;
}

/** The signing secrets of an endpoint now: the current one, and every replaced one during its overlap. */
export function signingSecrets(hook: WebhookRecord, sealKey: Buffer, now: number): string[] {
  const secrets = [open(hook.secret, sealKey)];
  for (const previous of hook.previousSecrets) if (previous.until > now) secrets.push(open(previous.sealed, sealKey));
  return secrets.filter((s): s is string => s !== null);
}

/** The body every attempt sends: the same bytes each time, so a receiver may deduplicate on webhook-id. */
export function deliveryBody(event: ClaimedDelivery['event']): string {
  return JSON.stringify({ id: event.id, type: event.type, timestamp: event.createdAt, data: event.data });
}

export async function deliverOne(
  ctx: DeliveryContext,
  owner: string,
  delivery: ClaimedDelivery,
  hook: WebhookRecord,
): Promise<void> {
  const { clock, settings } = ctx;
  const body = deliveryBody(delivery.event);
  const parsed = parseWebhookUrl(hook.url);
  const secrets = signingSecrets(hook, settings.sealKey, clock.now());
  let outcome: AttemptOutcome;
  let durationMs = 0;
  if (!parsed.ok || secrets.length === 0) {
    // A secret that does not open means KEY_HASH_SECRET changed: nothing could be signed.
    outcome = {
      kind: 'failed',
      status: null,
      error: parsed.ok ? 'the signing secret cannot be read (was KEY_HASH_SECRET changed?)' : 'the URL is not valid',
    };
  } else {
    const result = await postJson(parsed.url, signedHeaders(delivery.event.id, clock.now(), body, secrets), body, {
      timeoutMs: settings.timeoutMs,
      allowPrivate: settings.allowPrivate,
    });
    durationMs = result.durationMs;
    outcome =
      result.error === null && result.status !== null
        ? { kind: 'delivered', status: result.status }
        : { kind: 'failed', status: result.status, error: result.error ?? 'no answer' };
  }
  const now = clock.now();
  const attempt = delivery.attempts + 1;
  const reason = disableReason(outcome, hook.failingSince ?? now, now);
  const retryAt =
    outcome.kind === 'failed' && reason === null
      ? nextRetryAt(attempt, settings.retryScheduleMs, now, ctx.random)
      : null;
  const kind = outcome.kind === 'delivered' ? 'delivered' : retryAt === null ? 'failed' : 'retry';
  const written = await ctx.store.db.transaction().execute(async (trx) => {
    const ok = await finishAttempt(trx, owner, {
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      eventId: delivery.event.id,
      eventType: delivery.event.type,
      attempt,
      at: now,
      statusCode: outcome.status,
      durationMs,
      error: outcome.kind === 'failed' ? outcome.error : null,
      nextRetryAt: retryAt,
      outcome: kind,
    });
    if (ok)
      await recordEndpointOutcome(
        trx,
        hook.id,
        outcome.kind === 'delivered' ? { ok: true } : { ok: false, disableReason: reason },
        now,
      );
    return ok;
  });
  ctx.metrics.attempt(kind, durationMs / 1000);
  if (!written)
    ctx.logger.warn(
      { delivery: delivery.id, webhook: hook.id },
      'delivery lease lost before its outcome was written; another process will try it again',
    );
  if (reason !== null) ctx.logger.warn({ webhook: hook.id, reason }, 'webhook endpoint disabled');
}
