// THE SEAM for alert e-mail (DESIGN §12): a firing rule with recipients hands its event here, in
// the check's transaction. Until the mail outbox (migration 014, the mail helper's work) is on
// main, nothing is queued: this logs what would have been sent. Wiring it is one change, here:
// insert one outbox message per firing (subject and body from domain/event-sentences.ts) in `trx`.
import type { NewEvent } from '../domain/events.ts';
import type { Executor } from '../storage/store.ts';
import type { TrackerContext } from './context.ts';

export interface AlertMail {
  recipients: readonly string[];
  event: NewEvent;
}

export async function queueAlertMail(
  _trx: Executor,
  ctx: Pick<TrackerContext, 'logger'>,
  mails: readonly AlertMail[],
  _now: number,
): Promise<void> {
  for (const mail of mails)
    ctx.logger.info(
      { recipients: mail.recipients, account: mail.event.accountId, rule: mail.event.data.rule },
      'alert e-mail not queued: perch has no mail outbox yet',
    );
}
