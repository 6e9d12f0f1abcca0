// The background parts of a process (tracker, deliverer, mailer, streams, digest scheduler), listed
// once in compose.ts: runServer starts them; shutdown and closing the app stop them.
export interface BackgroundPart {
  start(): void;
  stop(): Promise<void>;
}

export interface Background {
  /** Starts every part, in the order listed. */
  start(): void;
  /** Stops every part at once; may be called again (shutdown stops them, then closes the app, which stops them too). */
  stop(): Promise<void>;
}

/** The parts that were built (null: not in this process). */
export function backgroundOf(parts: readonly (BackgroundPart | null)[]): Background {
  const built = parts.filter((part): part is BackgroundPart => part !== null);
  return {
    start: () => {
      for (const part of built) part.start();
    },
    stop: async () => {
      await Promise.all(built.map((part) => part.stop()));
    },
  };
}
