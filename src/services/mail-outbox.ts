// The one way a message is sent: put it in the outbox, in the caller's transaction (a digest's
// claim, an alert's firing), and the process's mail sender (src/notify/mailer.ts) delivers it with
// retries. Without SMTP_URL nothing is sent: messages wait, and health says so.
import { insertMail, type OutgoingMail } from '../storage/mail-repo.ts';
import type { Executor } from '../storage/store.ts';

export type { MailKind, OutgoingMail } from '../storage/mail-repo.ts';

/**
 * Queues `mail` for its recipients in `trx`; returns the message's id, or null when it has no
 * recipient (nothing to send). Addresses are checked where they are accepted (the rule's or the
 * digest's recipients), not here.
 */
export async function enqueueMail(trx: Executor, mail: OutgoingMail, now: number): Promise<number | null> {
  if (mail.to.length === 0) return null;
  return insertMail(trx, mail, now);
}
