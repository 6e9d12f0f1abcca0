// The requests one process took from a shared window ahead of its own requests (rate-gate.ts), so
// that a busy tracker writes the window once per block instead of once per request. A block is
// already subtracted from the store's window, so processes together still never take more than
// the platform left; what a process holds but does not send is given back when it goes idle, and
// what it cannot give back (it died) is lost for that window only, which errs on sending less.
//
// States: EMPTY (nothing held) → HELD (count > 0, of one window, taken at takenAt) → EMPTY when
// used up, given back, past the window's reset, or older than POOL_MS (then the next take gives
// it back and takes anew, so a 429 another process met reaches this one within that time).

/** Tokens held longer than this are given back at the next take instead of used. */
export const POOL_MS = 1_000;
/** The most requests one take removes from a window. */
export const MAX_BLOCK = 32;
/** A block is at most this share of what the window has left (the rest stays for other processes). */
const BLOCK_SHARE = 8;

/** How many requests to take at once from a window last seen with `remaining` left (1: a single take). */
export function blockSize(remaining: number | null): number {
  if (remaining === null) return 1;
  return Math.max(1, Math.min(MAX_BLOCK, Math.floor(remaining / BLOCK_SHARE)));
}

export class TokenPool {
  count = 0;
  resetAt = 0;
  private takenAt = 0;

  /** Holds `count` tokens of the window resetting at `resetAt`, taken at `now`. */
  fill(resetAt: number, count: number, now: number): void {
    this.resetAt = resetAt;
    this.count = count;
    this.takenAt = now;
  }

  /** Whether tokens held now may still be sent (their window has not reset and they are recent). */
  fresh(now: number): boolean {
    return now < this.resetAt && now - this.takenAt < POOL_MS;
  }

  /** Takes one held token if one may go now. */
  draw(now: number): boolean {
    if (this.count <= 0 || !this.fresh(now)) return false;
    this.count -= 1;
    return true;
  }

  /** Takes back a token of its window that was never sent; false if it belongs elsewhere. */
  putBack(resetAt: number, now: number): boolean {
    if (resetAt !== this.resetAt || !this.fresh(now)) return false;
    this.count += 1;
    return true;
  }

  /** Empties the pool; returns what it held (count and window) for the caller to give back. */
  empty(): { count: number; resetAt: number } {
    const held = { count: this.count, resetAt: this.resetAt };
    this.count = 0;
    return held;
  }
}
