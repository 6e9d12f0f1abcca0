// Webhook rules: the secret format, the retry schedule with jitter, when an endpoint is given up,
// and which URLs can be webhook URLs.
import { randomBytes } from 'node:crypto';
import { deriveKey } from './sealed-box.ts';

/** Standard Webhooks secrets: `whsec_` + base64 of the key bytes. https://www.standardwebhooks.com/ */
export const SECRET_PREFIX = 'whsec_';

/** The key that seals webhook secrets at rest, derived from KEY_HASH_SECRET. */
export const webhookSealKey = (keyHashSecret: string): Buffer => deriveKey(keyHashSecret, 'webhook-secrets');

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The old secret keeps signing this long after a rotation, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** An endpoint whose deliveries have all failed this long is disabled. */
export const GIVE_UP_AFTER_MS = 5 * 24 * 3_600_000;
const JITTER = 0.2;

/**
 * When to try a delivery again after its `attempts`-th failed attempt, or null when the schedule
 * is spent. Each wait is scheduled ± 20 %, so endpoints that failed together do not retry together.
 */
export function nextRetryAt(
  attempts: number,
  scheduleMs: readonly number[],
  now: number,
  random: () => number,
): number | null {
  const wait = scheduleMs[attempts - 1];
  if (wait === undefined) return null;
  return now + Math.round(wait * (1 - JITTER + 2 * JITTER * random()));
}

export type AttemptOutcome =
  { kind: 'delivered'; status: number } | { kind: 'failed'; status: number | null; error: string };

/** Whether a failure ends the endpoint: a 410 says it is gone; otherwise 5 days of nothing but failures. */
export function disableReason(outcome: AttemptOutcome, failingSince: number, now: number): string | null {
  if (outcome.kind !== 'failed') return null;
  if (outcome.status === 410) return 'the endpoint answered 410 Gone';
  if (now - failingSince >= GIVE_UP_AFTER_MS) return 'every delivery failed for 5 days';
  return null;
}

export type UrlProblem = 'invalid' | 'scheme' | 'credentials';

/** The URL as it will be called, or why it cannot be a webhook URL. */
export function parseWebhookUrl(raw: string): { ok: true; url: URL } | { ok: false; problem: UrlProblem } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'invalid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: 'scheme' };
  // Credentials in a URL end up in logs and listings; receivers verify the signature instead.
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'credentials' };
  return { ok: true, url };
}
