// Sorts an import's keys on a worker thread (key-order.ts feeds it). Each piece arrives as
// newline-joined keys and is sorted into a run; `done` merges the runs and answers with the rows'
// positions in key order (key-runs.ts).
import { answerMessages } from '../worker-thread.ts';
import { KeyRuns } from './key-runs.ts';

export type KeyOrderMessage = string | { done: true };

const runs = new KeyRuns();

answerMessages<KeyOrderMessage, Uint32Array<ArrayBuffer> | null>(
  (message) => {
    if (typeof message !== 'string') return runs.positions();
    runs.add(message.split('\n'));
    return null;
  },
  (order) => (order === null ? [] : [order.buffer]),
);
