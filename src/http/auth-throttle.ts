// Throttles clients that keep presenting bad keys: after N failures in a minute they get 429
// until the minute is over, even with a good key, which makes guessing keys pointless.

export interface FailureThrottle {
  /** Seconds the client must wait, or 0 when it may try. */
  retryAfter(client: string, now: number): number;
  recordFailure(client: string, now: number): void;
}

export class MemoryFailureThrottle implements FailureThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  retryAfter(client: string, now: number): number {
    const window = this.windows.get(client);
    if (!window || now - window.start >= this.windowMs || window.failures < this.limit) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  recordFailure(client: string, now: number): void {
    const window = this.windows.get(client);
    if (!window || now - window.start >= this.windowMs) {
      if (this.windows.size >= 100_000) this.sweep(now);
      this.windows.set(client, { start: now, failures: 1 });
    } else {
      window.failures += 1;
    }
  }

  private sweep(now: number): void {
    for (const [client, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(client);
  }
}
