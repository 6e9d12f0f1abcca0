// The one polling loop of every background job (the tracker's lanes, the webhook deliveries, the
// Bluesky stream, the digests), in the manner of pg-boss's worker: while not stopping, run a round
// of work, then wait until the policy says more is due or notify() wakes it. It knows nothing of
// what the work is: the round and the wait are injected. Fixed-period chores use every.ts instead.
//
// States:
//   IDLE      built, not started.
//   RUNNING   a round is in progress; a notify() meanwhile makes the next wait end at once. A
//             round that answers `true` (more is ready now) is followed by the next at once.
//   WAITING   sleeping on the clock for what `waitMs` said, until then or notify().
//   STOPPING  stop() was called: no round starts; stop() resolves when the running one ends.
//   STOPPED   the loop has ended.
import type { SleepingClock } from './clock.ts';

export type LoopState = 'idle' | 'running' | 'waiting' | 'stopping' | 'stopped';

export interface LoopSteps {
  /**
   * One round of work. Resolves `true` when more work is ready now (the next round then starts
   * without a wait), otherwise when nothing more can be done now.
   */
  round(): Promise<boolean | void>;
  /** How long to wait before the next round, in ms. */
  waitMs(): Promise<number>;
  /** A round or a wait threw (they should not): logged, and the loop goes on after a wait. */
  onError(error: unknown): void;
}

/** The shortest wait between rounds: a floor against spinning when due work cannot be taken. */
const MIN_WAIT_MS = 50;
/** The wait after a round or a wait threw, unless the loop is given its own. */
const ERROR_WAIT_MS = 5_000;

export interface LoopOptions {
  /** The wait after a round or a wait threw (ERROR_WAIT_MS by default). */
  errorWaitMs?: number;
}

export class PollingLoop {
  private current: LoopState = 'idle';
  private wake = new AbortController();
  private running: Promise<void> | null = null;

  constructor(
    private readonly steps: LoopSteps,
    private readonly clock: SleepingClock,
    private readonly options: LoopOptions = {},
  ) {}

  get state(): LoopState {
    return this.current;
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Ends the wait at once, or, during a round, skips the next wait. */
  notify(): void {
    this.wake.abort();
  }

  /** Stops the loop; resolves when the running round (if any) has ended. */
  async stop(): Promise<void> {
    if (this.current !== 'stopped') this.current = 'stopping';
    this.notify();
    await this.running;
    this.current = 'stopped';
  }

  private async run(): Promise<void> {
    while (this.current !== 'stopping' && this.current !== 'stopped') {
      this.wake = new AbortController();
      let wait: number;
      try {
        this.current = 'running';
        const more = await this.steps.round();
        if (this.stopped()) break;
        if (more === true) continue;
        wait = await this.steps.waitMs();
      } catch (error) {
        this.steps.onError(error);
        wait = this.options.errorWaitMs ?? ERROR_WAIT_MS;
      }
      if (this.stopped()) break;
      this.current = 'waiting';
      await this.clock.sleep(Math.max(MIN_WAIT_MS, wait), this.wake.signal);
    }
    this.current = 'stopped';
  }

  /** stop() may have been called while a step ran (TypeScript narrows `current` too eagerly to see it). */
  private stopped(): boolean {
    const state: LoopState = this.current;
    return state === 'stopping' || state === 'stopped';
  }
}
