// The mail sender, on the shared polling loop (src/loop.ts), like the webhook deliverer: a round
// claims due messages from the outbox under a lease and sends them one after another (SENDING);
// it answers "more ready" when it claimed a full batch, so the loop claims again at once.
// Otherwise the loop waits (WAITING) until the next message falls due, a poll interval passes,
// or notify(). Messages are few (a digest per period, an alert per cool-down): one at a time.
import { randomUUID } from 'node:crypto';
import { PollingLoop } from '../loop.ts';
import { claimMail, nextMailDueAt } from '../storage/mail-repo.ts';
import { sendOne, type MailContext } from './send-mail.ts';

/** An idle sender looks for work at least this often (other processes queue mail too). */
const POLL_MS = 5_000;
const BATCH = 8;
/** Longer than a message can take to send (nodemailer's connection, greeting and socket limits). */
const LEASE_MS = 5 * 60_000;

export interface MailerStatus {
  running: boolean;
  owner: string;
  lastPollAt: string | null;
}

export class Mailer {
  readonly owner = `mailer-${randomUUID()}`;
  private readonly loop: PollingLoop;
  private lastPollAt: number | null = null;

  constructor(
    private readonly ctx: MailContext,
    pollMs = POLL_MS,
  ) {
    this.loop = new PollingLoop(
      {
        round: async () => (await this.round()) >= BATCH,
        waitMs: async () => {
          const next = await nextMailDueAt(ctx.store.db);
          return Math.min(pollMs, next === null ? Infinity : next - ctx.clock.now());
        },
        onError: (error) => ctx.logger.warn({ err: error }, 'mail round failed; trying again shortly'),
      },
      ctx.clock,
      { errorWaitMs: pollMs },
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Wakes an idle loop (a message was just queued in this process). */
  notify(): void {
    this.loop.notify();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    this.ctx.transport.close();
  }

  status(): MailerStatus {
    const state = this.loop.state;
    return {
      running: state === 'running' || state === 'waiting',
      owner: this.owner,
      lastPollAt: this.lastPollAt === null ? null : new Date(this.lastPollAt).toISOString(),
    };
  }

  /** For tests on a virtual clock: send everything due now; returns how many attempts were made. */
  async runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.round();
      total += n;
      if (n < BATCH) return total;
    }
  }

  /** Claims a batch and sends it; returns how many were claimed. */
  private async round(): Promise<number> {
    const { store, clock } = this.ctx;
    const now = clock.now();
    this.lastPollAt = now;
    const claimed = await claimMail(store.db, store.caps, { owner: this.owner, now, leaseMs: LEASE_MS, limit: BATCH });
    for (const mail of claimed) await sendOne(this.ctx, this.owner, mail);
    return claimed.length;
  }
}
