// The stream's Prometheus metrics (DESIGN.md §10): frames applied by kind, reconnects, and the lag
// of the shards this process holds (now minus the last applied time_us).
import { Counter, Gauge, type Registry } from 'prom-client';

export interface StreamMetrics {
  /** Frames applied (commit, identity, account, other) or skipped (malformed). */
  frames(kind: string, n: number): void;
  reconnect(): void;
  /** The largest lag of the shards held, in seconds; null when none has applied a frame. */
  lag(seconds: number | null): void;
}

export const NO_STREAM_METRICS: StreamMetrics = { frames: () => {}, reconnect: () => {}, lag: () => {} };

export function streamMetrics(registry: Registry): StreamMetrics {
  const frames = new Counter({
    name: 'perch_stream_frames_total',
    help: 'Jetstream frames applied, by kind (commit, identity, account, other), and malformed ones skipped.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const reconnects = new Counter({
    name: 'perch_stream_reconnects_total',
    help: 'Jetstream connections opened again after one ended (cut, refused, or a failed batch).',
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'perch_stream_lag_seconds',
    help: 'Now minus the time_us of the last frame applied, for the most behind Jetstream shard this process holds.',
    registers: [registry],
  });
  return {
    frames: (kind, n) => frames.inc({ kind }, n),
    reconnect: () => reconnects.inc(),
    lag: (seconds) => (seconds === null ? lag.reset() : lag.set(seconds)),
  };
}
