// A firing rule's e-mail (DESIGN §12): one message per firing to the rule's recipients, put in the
// mail outbox in the check's transaction, so it is sent if and only if the alert was recorded.
import { alertMailText } from '../domain/alert-mail-text.ts';
import type { NewEvent } from '../domain/events.ts';
import { enqueueMail } from '../services/mail-outbox.ts';
import type { Executor } from '../storage/store.ts';

export interface AlertMail {
  ruleId: string;
  recipients: readonly string[];
  event: NewEvent;
}

export async function queueAlertMail(trx: Executor, mails: readonly AlertMail[], now: number): Promise<void> {
  for (const { ruleId, recipients, event } of mails) {
    const data = event.account ? { account: event.account, ...event.data } : event.data;
    await enqueueMail(trx, { to: recipients, kind: 'alert', ref: ruleId, ...alertMailText(data, ruleId, now) }, now);
  }
}
