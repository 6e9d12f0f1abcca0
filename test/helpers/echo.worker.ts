// A worker file for the worker-thread tests: answers what it is asked, the way perch's workers do.
import { resourceLimits, workerData } from 'node:worker_threads';
import { answerMessages } from '../../src/worker-thread.ts';

export type EchoMessage =
  | { kind: 'remember'; text: string }
  | { kind: 'recall' }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'fail' }
  | { kind: 'options' }
  | { kind: 'die' }
  | { kind: 'block'; ms: number }
  | { kind: 'later'; text: string; ms: number }
  | { kind: 'fail-later' };

const remembered: string[] = [];

answerMessages<EchoMessage, unknown>(
  (message) => {
    switch (message.kind) {
      case 'remember':
        return void remembered.push(message.text);
      case 'recall':
        return remembered.join(' ');
      case 'bytes':
        return new Uint8Array(message.bytes.map((byte) => byte + 1));
      case 'fail':
        throw new Error('asked to fail');
      case 'options':
        return { workerData: workerData as unknown, maxOldGenerationSizeMb: resourceLimits.maxOldGenerationSizeMb };
      case 'die':
        throw new Error('told to die');
      case 'later':
        // An answer that takes a while (as a write on the thread's own connection does).
        return new Promise((resolve) =>
          setTimeout(() => resolve(`${message.text} ${remembered.join(' ')}`), message.ms),
        );
      case 'fail-later':
        return Promise.reject(new Error('failed later'));
      case 'block':
        // Holds the thread (as a long parse or sort does) until the time passes or it is ended.
        return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, message.ms);
    }
  },
  (answer) => (answer instanceof Uint8Array ? [answer.buffer as ArrayBuffer] : []),
);
