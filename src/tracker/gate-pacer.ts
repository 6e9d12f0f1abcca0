// Every request a platform call sends passes the rate gate, not only its first: a RequestPacer over
// one RateGate. The first request may use a ticket the caller already holds (taken before claiming,
// so a lease never waits on a window); each later one takes its own, without waiting for the
// window to reopen (a call that would have to wait fails as rate limited and is tried again later).
import type { RateLimitInfo, RequestPacer } from '../platforms/types.ts';
import type { RateGate, Ticket } from '../limits/rate-gate.ts';

export class GatePacer implements RequestPacer {
  private first: Ticket | null;
  /** The ticket of the request in flight, settled by after(). */
  private current: Ticket | null = null;

  constructor(
    private readonly gate: RateGate,
    first: Ticket | null,
    private readonly signal: AbortSignal,
  ) {
    this.first = first;
  }

  async before(): Promise<boolean> {
    if (this.current !== null) await this.after(null, null);
    if (this.first !== null) {
      this.current = this.first;
      this.first = null;
      return true;
    }
    this.current = await this.gate.acquire(this.signal, { windowWait: false });
    return this.current !== null;
  }

  async after(rateLimit: RateLimitInfo | null, retryAt: number | null): Promise<void> {
    const ticket = this.current;
    this.current = null;
    if (ticket !== null) await this.gate.settle(ticket, rateLimit, retryAt);
  }

  /** Gives back what the call did not use (a first ticket no request went on). Never throws. */
  async finish(): Promise<void> {
    for (const ticket of [this.first, this.current]) if (ticket !== null) await this.gate.cancel(ticket);
    this.first = null;
    this.current = null;
  }
}
