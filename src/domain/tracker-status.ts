// What a tracker reports about itself, for health and metrics: the shape of its status snapshot and
// when a tracker that stopped writing heartbeats counts as lost. The API reads these without
// knowing how the tracker works.

/** How often a running tracker writes its heartbeat row. */
export const HEARTBEAT_MS = 5_000;
/** A tracker not heard of for this long is reported as lost (it died, or cannot reach the store). */
export const LOST_AFTER_MS = 3 * HEARTBEAT_MS;

/** One platform rate-limit window as last seen. */
export interface RateWindowSnapshot {
  limit: number | null;
  remaining: number | null;
  resetAt: string | null;
  blockedUntil: string | null;
  inFlight: number;
}

export interface PlatformLaneStatus {
  configured: boolean;
  pausedUntil: string | null;
  pauseReason: string | null;
  lookup: RateWindowSnapshot;
  posts: RateWindowSnapshot;
  budget: { day: string | null; used: number; limit: number } | null;
}

export interface TrackerStatus {
  running: boolean;
  owner: string;
  lastTickAt: string | null;
  lastTickMs: number | null;
  /** Lane rounds (claim until nothing is due) since start. */
  ticks: number;
  platforms: Record<string, PlatformLaneStatus>;
}

/** What the API needs of a tracker in the same process: wake it, and read its state for health. */
export interface TrackerView {
  notify(): void;
  status(): TrackerStatus;
}
