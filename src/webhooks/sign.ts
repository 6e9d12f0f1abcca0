// Standard Webhooks headers for one attempt, signed with the maintained `standardwebhooks`
// implementation; during a rotation both secrets sign, space-separated.
// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md
import { Webhook } from 'standardwebhooks';

export function signedHeaders(
  eventId: string,
  timestampMs: number,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const at = new Date(timestampMs);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestampMs / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
