// A bounded history of each post's metrics: one sample at each of a few ages (1 h, 6 h, 24 h,
// 72 h, 7 d), so the API can show how fast a post gathered engagement while storage per post stays
// fixed. Pure: the tracker calls it with each observation of a post (first read or refresh).
const HOUR_MS = 3_600_000;

/** The ages a sample is kept for, youngest first. */
export const CHECKPOINTS = [
  { age: '1h', ms: HOUR_MS },
  { age: '6h', ms: 6 * HOUR_MS },
  { age: '24h', ms: 24 * HOUR_MS },
  { age: '72h', ms: 72 * HOUR_MS },
  { age: '7d', ms: 168 * HOUR_MS },
] as const;

export type CheckpointAge = (typeof CHECKPOINTS)[number]['age'];

export interface PostMetrics {
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
}

export interface MetricsSample extends PostMetrics {
  /** The checkpoint this sample stands for. */
  age: CheckpointAge;
  /** When it was observed (epoch ms): at or after `createdAt + age`, within the tolerance. */
  observedAt: number;
}

/**
 * The history after one more observation of a post. A checkpoint takes the first observation made
 * at an age in [checkpoint, checkpoint + toleranceMs); an observation counts for one checkpoint
 * only (the largest it falls within), and a checkpoint once filled is never overwritten. So a post
 * first read at 30 h gets no 1 h or 6 h sample (nothing is made up), and the history never holds
 * more than one sample per checkpoint. The tracker passes twice its check interval as tolerance.
 */
export function recordObservation(
  history: readonly MetricsSample[],
  createdAt: number,
  observedAt: number,
  metrics: PostMetrics,
  toleranceMs: number,
): MetricsSample[] {
  const age = observedAt - createdAt;
  let checkpoint: (typeof CHECKPOINTS)[number] | undefined;
  for (const candidate of CHECKPOINTS)
    if (age >= candidate.ms && age < candidate.ms + toleranceMs) checkpoint = candidate;
  if (checkpoint === undefined || history.some((s) => s.age === checkpoint.age)) return [...history];
  const sample: MetricsSample = {
    age: checkpoint.age,
    observedAt,
    likes: metrics.likes,
    reposts: metrics.reposts,
    replies: metrics.replies,
    quotes: metrics.quotes,
  };
  return [...history, sample].sort((a, b) => checkpointMs(a.age) - checkpointMs(b.age));
}

function checkpointMs(age: CheckpointAge): number {
  return CHECKPOINTS.find((c) => c.age === age)?.ms ?? 0;
}

const AGES: ReadonlySet<string> = new Set(CHECKPOINTS.map((c) => c.age));
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * A history read back from storage: samples of known checkpoints with whole counts, one per
 * checkpoint, youngest first; anything else is dropped, so the bound holds whatever was stored.
 */
export function parseHistory(value: unknown): MetricsSample[] {
  if (!Array.isArray(value)) return [];
  const byAge = new Map<CheckpointAge, MetricsSample>();
  for (const item of value) {
    if (typeof item !== 'object' || item === null) continue;
    const { age, observedAt, likes, reposts, replies, quotes } = item as Record<string, unknown>;
    if (typeof age !== 'string' || !AGES.has(age) || byAge.has(age as CheckpointAge)) continue;
    if (!isCount(observedAt) || !isCount(likes) || !isCount(reposts) || !isCount(replies) || !isCount(quotes)) continue;
    byAge.set(age as CheckpointAge, { age: age as CheckpointAge, observedAt, likes, reposts, replies, quotes });
  }
  return [...byAge.values()].sort((a, b) => checkpointMs(a.age) - checkpointMs(b.age));
}

/** Likes at the 24 h checkpoint, or null when the history has no such sample. */
export function likesAt24h(history: readonly MetricsSample[]): number | null {
  return history.find((s) => s.age === '24h')?.likes ?? null;
}
