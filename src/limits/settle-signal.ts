// How a rate gate's waiters in one process learn that a request of that process settled.

/** A promise to resolve at the next change, with its resolver. */
export function changeSignal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves when `changed` does or `signal` aborts, leaving no listener behind. */
export function untilSettled(changed: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      signal?.removeEventListener('abort', done);
      resolve();
    };
    signal?.addEventListener('abort', done, { once: true });
    void changed.then(done);
  });
}
