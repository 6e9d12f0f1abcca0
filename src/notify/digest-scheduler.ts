// The digest scheduler, on the shared polling loop (src/loop.ts), in every process that sends mail:
// a round sends each digest's due period that no process has claimed (services/digests.ts claims
// it in the store, with its message, in one transaction), wakes the mail sender, and the loop
// waits (WAITING) until the next digest's time, at most a minute (digests change meanwhile).
import type { Logger } from 'pino';
import type { SleepingClock } from '../clock.ts';
import { PollingLoop } from '../loop.ts';
import { nextDigestDueAt, sendDueDigests, type DigestDeps } from '../services/digests.ts';

const POLL_MS = 60_000;

export class DigestScheduler {
  private readonly loop: PollingLoop;

  constructor(
    private readonly deps: DigestDeps & { clock: SleepingClock },
    private readonly onQueued: () => void,
    logger: Logger,
  ) {
    this.loop = new PollingLoop(
      {
        round: async () => {
          await this.runOnce();
        },
        waitMs: async () => {
          const next = await nextDigestDueAt(deps);
          return Math.min(POLL_MS, next === null ? Infinity : next - deps.clock.now());
        },
        onError: (error) => logger.warn({ err: error }, 'digest round failed; trying again shortly'),
      },
      deps.clock,
      { errorWaitMs: POLL_MS },
    );
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Sends what is due now; returns how many digests were queued (tests drive it on a virtual clock). */
  async runOnce(): Promise<number> {
    const queued = await sendDueDigests(this.deps);
    if (queued > 0) this.onQueued();
    return queued;
  }
}
