// Lookups of one row each that arrive together go to the store as one query. On PostgreSQL every
// query is a round trip: a write to the server's socket, a wakeup of its backend, a result to parse.
// Fifty clients reading one account each cost fifty of those; gathered, a few. A lookup waits for
// nothing but the end of the current turn of the event loop (the requests read in the same turn),
// or for `max` others, whichever comes first.

interface Waiter<K, V> {
  key: K;
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

export class CoalescedLookups<K, V> {
  private pending: Waiter<K, V>[] = [];
  private scheduled = false;

  constructor(
    /** Loads the values of `keys`, in their order. */
    private readonly load: (keys: readonly K[]) => Promise<readonly V[]>,
    private readonly max: number,
  ) {}

  get(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.pending.push({ key, resolve, reject });
      if (this.pending.length >= this.max) void this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          void this.flush();
        });
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      const values = await this.load(batch.map((waiter) => waiter.key));
      batch.forEach((waiter, i) => waiter.resolve(values[i] as V));
    } catch (error) {
      // Each lookup fails as it would have alone (the store is down, the query was refused).
      batch.forEach((waiter) => waiter.reject(error));
    }
  }
}
