// One unit of work: send one claimed message over SMTP (nodemailer) and write its outcome (sent,
// retry later with jitter, or failed after the last retry) and the attempt in one transaction.
import type { Logger } from 'pino';
import type { Transporter } from 'nodemailer';
import type { SleepingClock } from '../clock.ts';
import { nextRetryAt } from '../domain/webhooks.ts';
import { finishMailAttempt, type ClaimedMail } from '../storage/mail-repo.ts';
import type { Store } from '../storage/store.ts';

export interface MailContext {
  store: Store;
  clock: SleepingClock;
  transport: Transporter;
  from: string;
  retryScheduleMs: readonly number[];
  logger: Logger;
  random: () => number;
}

/** What the server said: its reply line, or the error (with the SMTP code when there is one). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { response, responseCode } = error as Error & { response?: string; responseCode?: number };
  const said = response ?? error.message;
  return (responseCode !== undefined && !said.startsWith(String(responseCode)) ? `${responseCode} ` : '') + said;
}

export async function sendOne(
  ctx: MailContext,
  owner: string,
  mail: ClaimedMail,
): Promise<'sent' | 'retry' | 'failed'> {
  const started = ctx.clock.now();
  const t0 = performance.now();
  let response: string | null = null;
  let error: string | null = null;
  try {
    const info = (await ctx.transport.sendMail({
      from: ctx.from,
      to: [...mail.to],
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      headers: { 'X-Perch-Kind': mail.kind, 'X-Perch-Ref': mail.ref },
    })) as { response?: string; rejected?: unknown[] };
    response = info.response ?? null;
    // The server took the message for some recipients: retrying would send it to those again.
    if (info.rejected && info.rejected.length > 0)
      response = `${response ?? ''} (refused: ${info.rejected.join(', ')})`;
  } catch (thrown) {
    error = describeError(thrown).slice(0, 1_000);
  }
  const durationMs = Math.round(performance.now() - t0);
  const now = Math.max(started, ctx.clock.now());
  const attempt = mail.attempts + 1;
  const retryAt = error === null ? null : nextRetryAt(attempt, ctx.retryScheduleMs, now, ctx.random);
  const outcome = error === null ? 'sent' : retryAt === null ? 'failed' : 'retry';
  const written = await finishMailAttempt(ctx.store.db, owner, {
    mailId: mail.id,
    kind: mail.kind,
    subject: mail.subject,
    to: [...mail.to],
    attempt,
    at: now,
    durationMs,
    outcome,
    response,
    error,
    nextRetryAt: retryAt,
  });
  if (!written)
    ctx.logger.warn({ mail: mail.id }, 'mail lease lost before its outcome was written; it may be sent again');
  if (outcome === 'failed') ctx.logger.warn({ mail: mail.id, error }, 'mail could not be sent; giving up');
  return outcome;
}
