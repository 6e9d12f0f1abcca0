// collectGarbageSoon runs one full (mark-compact) collection shortly after it is asked, which an
// idle process would otherwise not run: garbage left by a large import is collected at once.
import assert from 'node:assert/strict';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { collectGarbageSoon } from '../../src/memory.ts';

/** Counts the full collections that run while `during` does. */
async function majorCollections(during: () => Promise<void>): Promise<number> {
  let major = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major += 1;
  });
  observer.observe({ entryTypes: ['gc'] });
  await during();
  await delay(50);
  observer.disconnect();
  return major;
}

test('a full collection runs shortly after it is asked for, once for calls close together', async () => {
  // Idle, nothing prompts one.
  assert.equal(await majorCollections(() => delay(300)), 0);
  const asked = await majorCollections(async () => {
    collectGarbageSoon(20);
    collectGarbageSoon(20);
    await delay(300);
  });
  assert.equal(asked, 1);
});
