// The delivery loop. States: POLLING (claim due deliveries for the free slots), SENDING (each
// claimed delivery runs on its own; the loop claims again as slots free up), WAITING (nothing
// due: sleep until the next delivery is due, a poll interval passes, or notify()), STOPPED.
// An endpoint gets at most a quarter of the slots, so a slow or dead endpoint holds only those
// while the others' deliveries go on; the rest of its queue is left unclaimed for later.
import { randomUUID } from 'node:crypto';
import { purgeEvents } from '../storage/events-repo.ts';
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
/** Retention runs this often. */
const PURGE_EVERY_MS = 3_600_000;

export interface DelivererOptions extends DeliveryContext {
  concurrency: number;
  eventRetentionMs: number;
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
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake = new AbortController();
  private lastPollAt: number | null = null;
  private lastPurgeAt = 0;

  constructor(options: DelivererOptions) {
    this.options = options;
    this.owner = options.owner ?? `deliverer-${randomUUID()}`;
    this.perEndpoint = Math.max(1, Math.floor(options.concurrency / 4));
  }

  start(): void {
    if (this.loop) return;
    this.loop = this.run();
  }

  /** Wakes an idle loop (an event was just written in this process). */
  notify(): void {
    this.wake.abort();
  }

  /** Stops claiming and waits for the deliveries in flight (each ends within WEBHOOK_TIMEOUT). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.notify();
    await this.loop;
    await Promise.allSettled(this.inFlight.values());
  }

  status(): DelivererStatus {
    return {
      running: this.loop !== null && !this.stopping,
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

  private async run(): Promise<void> {
    const { clock, logger } = this.options;
    while (!this.stopping) {
      try {
        // Made before claiming, so a delivery that ends meanwhile still wakes the wait below.
        const wake = (this.wake = new AbortController());
        await this.purgeIfDue();
        const started = await this.claimAndStart();
        if (this.stopping) break;
        if (started > 0) continue;
        const pollMs = this.options.pollMs ?? POLL_MS;
        if (this.inFlight.size > 0) {
          // Slots free up as deliveries end; each end wakes this wait.
          await clock.sleep(pollMs, wake.signal);
          continue;
        }
        const next = await nextDeliveryDueAt(this.options.store.db);
        const sleepMs = Math.min(pollMs, next === null ? Infinity : Math.max(0, next - clock.now()));
        await clock.sleep(Math.max(sleepMs, 10), wake.signal);
      } catch (error) {
        logger.warn({ err: error }, 'delivery round failed; trying again shortly');
        await clock.sleep(this.options.pollMs ?? POLL_MS);
      }
    }
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
        this.wake.abort();
      });
    this.inFlight.set(delivery.id, work);
  }

  private async purgeIfDue(): Promise<void> {
    const now = this.options.clock.now();
    if (now - this.lastPurgeAt < PURGE_EVERY_MS) return;
    this.lastPurgeAt = now;
    const purged = await purgeEvents(this.options.store.db, now - this.options.eventRetentionMs);
    if (purged > 0) this.options.logger.info({ purged }, 'events past retention removed');
  }
}
