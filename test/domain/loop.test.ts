// The shared polling loop: a round that says more is ready is followed at once, without a wait;
// a failing round waits the loop's error wait. (Waking and stopping: test/limits/limits.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PollingLoop } from '../../src/loop.ts';

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a round answering true skips the wait; a throwing one waits errorWaitMs', async () => {
  const sleeps: number[] = [];
  const clock = {
    now: () => 0,
    // Never ends by itself: the test only looks at what the loop asked for.
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        sleeps.push(ms);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
  let rounds = 0;
  let waits = 0;
  const errors: unknown[] = [];
  const loop = new PollingLoop(
    {
      // Rounds 1 and 2 find more ready; round 3 finds nothing; round 4 throws.
      round: async () => {
        rounds += 1;
        if (rounds === 4) throw new Error('store away');
        return rounds < 3;
      },
      waitMs: async () => {
        waits += 1;
        return 60_000;
      },
      onError: (error) => errors.push(error),
    },
    clock,
    { errorWaitMs: 1_234 },
  );
  loop.start();
  while (sleeps.length < 1) await turn();
  assert.equal(rounds, 3, 'three rounds before the first wait');
  assert.equal(waits, 1, 'the policy was asked once, after the round that found nothing');
  assert.deepEqual(sleeps, [60_000]);
  loop.notify();
  while (sleeps.length < 2) await turn();
  assert.equal(errors.length, 1);
  assert.deepEqual(sleeps, [60_000, 1_234], 'after a throw the loop waits its error wait');
  await loop.stop();
  assert.equal(loop.state, 'stopped');
});
