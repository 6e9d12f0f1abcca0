// The mail settings of the configuration (config.ts calls this with its own readers).

export interface MailSettings {
  /** smtp://host:port or smtps://user:pass@host:465; null: nothing is sent, digests are previews. */
  readonly smtpUrl: string | null;
  /** The From of every message perch sends. */
  readonly mailFrom: string;
  /** Waits before each retry of a message the server did not take (each ± 20 % jitter); then it has failed. */
  readonly mailRetryScheduleMs: readonly number[];
}

export function mailSettings(
  text: (name: string) => string | null,
  durations: (name: string, fallback: string) => number[],
  problems: string[],
): MailSettings {
  const smtpUrl = text('SMTP_URL');
  if (smtpUrl !== null) {
    let scheme = '';
    try {
      scheme = new URL(smtpUrl).protocol;
    } catch {
      // reported below
    }
    if (scheme !== 'smtp:' && scheme !== 'smtps:')
      problems.push('SMTP_URL must be smtp://host:port or smtps://user:password@host:465');
  }
  const mailFrom = text('MAIL_FROM') ?? 'perch <perch@localhost>';
  if (!/^[^<>@\s]+@[^<>@\s]+$|<[^<>@\s]+@[^<>@\s]+>$/.test(mailFrom))
    problems.push(`MAIL_FROM must be an address, or a name and <address> (got "${mailFrom}")`);
  return { smtpUrl, mailFrom, mailRetryScheduleMs: durations('MAIL_RETRY_SCHEDULE', '30s,5m,30m,2h,6h') };
}
