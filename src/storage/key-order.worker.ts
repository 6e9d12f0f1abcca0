// Sorts an import's keys on a worker thread (key-order.ts feeds it). Each piece arrives as
// newline-joined keys and is sorted into a run; `done` merges the runs and answers with the rows'
// positions in key order. A key carries its position after a tab, which sorts below every
// character a key may hold: keys are distinct, so the default string sort (far faster than one
// with a comparator) orders them, and the position is read back after.
import { answerMessages } from '../worker-thread.ts';

export type KeyOrderMessage = string | { done: true };

const runs: string[][] = [];
let next = 0;

function merge(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = (a[i] as string) < (b[j] as string) ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

function positionsInOrder(): Uint32Array<ArrayBuffer> {
  while (runs.length > 1) {
    const merged: string[][] = [];
    for (let i = 0; i < runs.length; i += 2) {
      const [a, b] = [runs[i] as string[], runs[i + 1]];
      merged.push(b === undefined ? a : merge(a, b));
    }
    runs.splice(0, runs.length, ...merged);
  }
  const keys = runs[0] ?? [];
  const order = new Uint32Array(keys.length);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    order[i] = Number(key.slice(key.lastIndexOf('\t') + 1));
  }
  return order;
}

answerMessages<KeyOrderMessage, Uint32Array<ArrayBuffer> | null>(
  (message) => {
    if (typeof message !== 'string') return positionsInOrder();
    const keys = message.split('\n');
    for (let i = 0; i < keys.length; i += 1) keys[i] += `\t${next + i}`;
    next += keys.length;
    runs.push(keys.sort());
    return null;
  },
  (order) => (order === null ? [] : [order.buffer]),
);
