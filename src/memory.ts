// Handing memory back after a large piece of work. An import of a million names leaves a few
// hundred MiB of garbage in V8's old space; with no allocation to prompt it, V8 may not collect it
// for hours, and the process keeps what that garbage held (bench/README.md, import-memory). One
// full collection a moment after such work hands most of it back.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;
let pending: NodeJS.Timeout | null = null;

/** V8's own full collection, reached once through the flag that exposes it. */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  } catch {
    collect = null;
  }
  return collect;
}

/** One full collection `delayMs` from now (calls meanwhile share it); never keeps the process up. */
export function collectGarbageSoon(delayMs = 1_000): void {
  if (pending !== null) return;
  pending = setTimeout(() => {
    pending = null;
    collector()?.();
  }, delayMs);
  pending.unref();
}
