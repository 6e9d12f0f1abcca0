// The webhook deliverer, on the shared polling loop (src/loop.ts). A round claims due deliveries
// for the free slots and starts each on its own (SENDING); it answers "more ready" when it started
// some, so the loop claims again at once. Otherwise the loop waits (WAITING) until a delivery ends,
// the next one falls due, a poll interval passes, or notify(). An endpoint gets at most a quarter
// of the slots, so a slow or dead endpoint holds only those while the others' deliveries go on;
// the rest of its queue is left unclaimed for later. Old events are pruned by services/retention.ts.
import { randomUUID } from 'node:crypto';
import { PollingLoop } from '../loop.ts';
import {
  claimDeliveries,
  nextDeliveryDueAt,
  releaseDeliveries,
  type ClaimedDelivery,
} from '../storage/deliveries-repo.ts';
import { findWebhooks } from '../storage/webhooks-repo.ts';
import { deliverOne, type DeliveryContext } from './deliver-one.ts';

/** An idle deliverer looks for work at least this often (other processes write events too). */
const POLL_MS = 1_000;

export interface DelivererOptions extends DeliveryContext {
  concurrency: number;
  owner?: string;
  pollMs?: number;
}

export interface DelivererStatus {
  running: boolean;
  owner: string;
  inFlight: number;
  lastPollAt: string | null;
}

export class Deliverer {
  readonly owner: string;
  private readonly options: DelivererOptions;
  private readonly perEndpoint: number;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly byEndpoint = new Map<string, number>();
  private readonly loop: PollingLoop;
  private lastPollAt: number | null = null;

  constructor(options: DelivererOptions) {
    this.options = options;
    this.owner = options.owner ?? `deliverer-${randomUUID()}`;
    this.perEndpoint = Math.max(1, Math.floor(options.concurrency / 4));
    const pollMs = options.pollMs ?? POLL_MS;
    this.loop = new PollingLoop(
      {
        round: async () => (await this.claimAndStart()) > 0,
        waitMs: () => this.idleWait(pollMs),
        onError: (error) => options.logger.warn({ err: error }, 'delivery round failed; trying again shortly'),
      },
      options.clock,
      { errorWaitMs: pollMs },
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Wakes an idle loop (an event was just written in this process). */
  notify(): void {
    this.loop.notify();
  }

  /** Stops claiming and waits for the deliveries in flight (each ends within WEBHOOK_TIMEOUT). */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled(this.inFlight.values());
  }

  status(): DelivererStatus {
    const state = this.loop.state;
    return {
      running: state === 'running' || state === 'waiting',
      owner: this.owner,
      inFlight: this.inFlight.size,
      lastPollAt: this.lastPollAt === null ? null : new Date(this.lastPollAt).toISOString(),
    };
  }

  /** One round, for tests on a virtual clock: claim what is due now, send it all, and return how many were sent. */
  async runOnce(): Promise<number> {
    let sent = 0;
    for (;;) {
      const started = await this.claimAndStart();
      if (started === 0 && this.inFlight.size === 0) return sent;
      sent += started;
      if (started === 0 || this.inFlight.size >= this.options.concurrency) await Promise.race(this.inFlight.values());
    }
  }

  /** How long the loop may wait: while deliveries are in flight, until one ends (each end wakes it). */
  private async idleWait(pollMs: number): Promise<number> {
    if (this.inFlight.size > 0) return pollMs;
    const next = await nextDeliveryDueAt(this.options.store.db);
    return Math.min(pollMs, next === null ? Infinity : next - this.options.clock.now());
  }

  /** Claims deliveries for the free slots and starts them; returns how many started. */
  private async claimAndStart(): Promise<number> {
    const { store, clock, settings } = this.options;
    const free = this.options.concurrency - this.inFlight.size;
    // Claim in batches, once half the slots are free: a busy queue then costs one claim per
    // several deliveries rather than one per delivery.
    if (free <= 0 || free < this.options.concurrency / 2) return 0;
    const now = clock.now();
    this.lastPollAt = now;
    const full = [...this.byEndpoint].filter(([, n]) => n >= this.perEndpoint).map(([id]) => id);
    // Longer than any attempt can take (the timeout, then one write), so a delivery in flight never
    // loses its lease to another process; a crashed process's deliveries come back after it.
    const leaseMs = settings.timeoutMs * 2 + 5_000;
    const claimed = await claimDeliveries(store.db, store.caps, {
      owner: this.owner,
      now,
      leaseMs,
      limit: free,
      skipWebhooks: full,
    });
    if (claimed.length === 0) return 0;
    const hooks = await findWebhooks(store.reader, [...new Set(claimed.map((c) => c.webhookId))]);
    const surplus: number[] = [];
    let started = 0;
    for (const delivery of claimed) {
      const hook = hooks.get(delivery.webhookId);
      const busy = this.byEndpoint.get(delivery.webhookId) ?? 0;
      if (!hook || busy >= this.perEndpoint) {
        surplus.push(delivery.id);
        continue;
      }
      this.begin(delivery, hook);
      started++;
    }
    await releaseDeliveries(store.db, this.owner, surplus);
    return started;
  }

  private begin(delivery: ClaimedDelivery, hook: Parameters<typeof deliverOne>[3]): void {
    this.byEndpoint.set(hook.id, (this.byEndpoint.get(hook.id) ?? 0) + 1);
    const work = deliverOne(this.options, this.owner, delivery, hook)
      .catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, delivery: delivery.id },
          'delivery could not be completed; it will be tried again when its lease ends',
        ),
      )
      .finally(() => {
        this.inFlight.delete(delivery.id);
        const left = (this.byEndpoint.get(hook.id) ?? 1) - 1;
        if (left <= 0) this.byEndpoint.delete(hook.id);
        else this.byEndpoint.set(hook.id, left);
        this.loop.notify();
      });
    this.inFlight.set(delivery.id, work);
  }
}
