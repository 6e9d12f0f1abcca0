// Builds the mail sender from the configuration (perch serve and perch worker); null without SMTP_URL.
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import { systemClock, type SleepingClock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Store } from '../storage/store.ts';
import { Mailer } from './mailer.ts';

export function createMailer(
  config: Config,
  store: Store,
  logger: Logger,
  options: { clock?: SleepingClock; pollMs?: number } = {},
): Mailer | null {
  if (config.smtpUrl === null) return null;
  // The URL's settings (host, port, TLS, user) win; the waits are bounded, so a server that does
  // not answer is an attempt that failed, retried later.
  const transport = nodemailer.createTransport({
    url: config.smtpUrl,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return new Mailer(
    {
      store,
      clock: options.clock ?? systemClock,
      transport,
      from: config.mailFrom,
      retryScheduleMs: config.mailRetryScheduleMs,
      logger: logger.child({ component: 'mail' }),
      random: Math.random,
    },
    options.pollMs,
  );
}
