// every(): a fixed-period chore that never overlaps itself and whose stop() waits for the running run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { every } from '../../src/every.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('runs on its period, skips a turn while a run is still going, and stop() waits for the run', async () => {
  let runs = 0;
  let inside = 0;
  let most = 0;
  let release: () => void = () => {};
  const chore = every(
    10,
    async () => {
      runs += 1;
      inside += 1;
      most = Math.max(most, inside);
      // The first run hangs until released: the turns meanwhile must not start a second one.
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
      inside -= 1;
    },
    { firstAfterMs: 0 },
  );
  await wait(60);
  assert.equal(runs, 1, 'no second run while the first is going');
  let stopped = false;
  const stopping = chore.stop().then(() => (stopped = true));
  await wait(5);
  assert.equal(stopped, false, 'stop() waits for the running task');
  release();
  await stopping;
  const after = runs;
  await wait(40);
  assert.equal(runs, after, 'nothing runs after stop()');
  assert.equal(most, 1);
});

test('a run that throws is reported and the next one still happens; runNow joins a running run', async () => {
  const errors: unknown[] = [];
  let runs = 0;
  const chore = every(
    15,
    async () => {
      runs += 1;
      await wait(5);
      if (runs === 1) throw new Error('first run fails');
    },
    { onError: (error) => errors.push(error) },
  );
  const a = chore.runNow();
  const b = chore.runNow();
  assert.equal(a, b, 'a second runNow joins the first');
  await a;
  assert.equal(errors.length, 1);
  await wait(50);
  assert.ok(runs >= 2, `ran again on schedule (${runs})`);
  await chore.stop();
});

test('firstAfterMs 0 runs at once, and stop() aborts the running task’s signal', async () => {
  let started = false;
  let sawAbort = false;
  const chore = every(
    60_000,
    async (stopping) => {
      started = true;
      await new Promise<void>((resolve) => stopping.addEventListener('abort', () => resolve(), { once: true }));
      sawAbort = stopping.aborted;
    },
    { firstAfterMs: 0 },
  );
  assert.equal(started, true, 'the first run started before every() returned');
  await chore.stop();
  assert.equal(sawAbort, true, 'a long task can end early on stop()');
});
