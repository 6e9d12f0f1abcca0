// Time as a dependency: logic that schedules or expires asks a clock, so tests can set the time.

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
