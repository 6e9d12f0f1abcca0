// A digest sent now, on request (`perch digests send-now`): what its preview shows (the period that
// ends at its next send, up to this moment), queued in the mail outbox for its recipients. It is
// not one of the digest's periodic sends, so the scheduled one still goes out at its time.
import { nextSendAt } from '../domain/digest-schedule.ts';
import { PerchError } from '../domain/errors.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import { findDigest } from '../storage/digests-repo.ts';
import { renderDigest, type DigestDeps } from './digests.ts';
import { enqueueMail } from './mail-outbox.ts';

export interface SentNow {
  mailId: number | null;
  subject: string;
  recipients: string[];
  periodStart: string;
  periodEnd: string;
}

export async function sendDigestNow(deps: DigestDeps, id: string, actor: string | null): Promise<SentNow> {
  const digest = await findDigest(deps.store.db, id);
  if (!digest) throw new PerchError('digest_not_found', `There is no digest ${id.slice(0, 60)}.`);
  if (!deps.mailOn)
    throw new PerchError(
      'bad_request',
      'Mail is not configured (SMTP_URL), so a digest cannot be sent; `perch digests preview` shows it.',
    );
  const now = deps.clock.now();
  const mail = await renderDigest(deps.store, digest, nextSendAt(digest, now), false);
  const mailId = await deps.store.db.transaction().execute(async (trx) => {
    const queued = await enqueueMail(
      trx,
      { to: digest.recipients, subject: mail.subject, html: mail.html, text: mail.text, kind: 'digest', ref: id },
      now,
    );
    await writeAudit(trx, { actor, action: 'digest.send', target: id, detail: { mail: queued }, at: now });
    return queued;
  });
  return {
    mailId,
    subject: mail.subject,
    recipients: digest.recipients,
    periodStart: mail.periodStart,
    periodEnd: mail.periodEnd,
  };
}
