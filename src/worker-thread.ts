// The one way perch runs work on a worker thread: start a worker file, tell it or ask it (answers
// come back in the order asked), end it. A worker file is a module of its own (`*.worker.ts`)
// whose messages go through answerMessages(). Production runs the compiled `.js` beside this
// module; from the sources (tests, `npm run dev`, benches) the `.ts` file is loaded through tsx,
// registered in the thread itself: a loader the parent took with `--import` does not reach it.
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, type TransferListItem, type WorkerOptions } from 'node:worker_threads';

/** Worker options (data, memory limits, ...); `unref`: the thread never keeps the process alive. */
export type WorkerStartOptions = Omit<WorkerOptions, 'eval' | 'execArgv' | 'argv'> & { unref?: boolean };

/** The worker's handler threw on an asked message, or its answer could not be sent (the thread goes on). */
export class WorkerAnswerError extends Error {
  override name = 'WorkerAnswerError';
}

type Envelope = { ask: boolean; body: unknown };
type Answer = { value: unknown } | { error: string };
interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

// This module is compiled with the others: as `.js`, its neighbours are compiled too.
const FROM_SOURCES = import.meta.url.endsWith('.ts');

export class WorkerThread<In, Out> {
  private readonly worker: Worker;
  private readonly waiting: Waiter[] = [];
  private ended: Error | null = null;
  private exiting = false;
  /** Called once if the thread ends by itself (it failed, or its code returned). */
  onExit: ((error: Error) => void) | undefined;

  constructor(file: URL, options: WorkerStartOptions = {}) {
    const { unref, ...workerOptions } = options;
    const label = file.pathname.split('/').pop() ?? 'worker';
    this.worker = FROM_SOURCES
      ? new Worker(sourceLoader(file), { ...workerOptions, eval: true, execArgv: [] })
      : new Worker(new URL(file.href.replace(/\.ts$/, '.js')), { ...workerOptions, execArgv: [] });
    if (unref === true) this.worker.unref();
    this.worker.on('message', (answer: Answer) => {
      const waiter = this.waiting.shift();
      if ('error' in answer) waiter?.reject(new WorkerAnswerError(answer.error));
      else waiter?.resolve(answer.value);
    });
    this.worker.on('error', (error) => this.end(error));
    this.worker.once('exit', (code) => this.end(new Error(`the ${label} thread ended (exit ${code})`)));
  }

  get alive(): boolean {
    return this.ended === null;
  }

  /** Sends a message that gets no answer (a throw there ends the thread). */
  tell(message: In, transfer: readonly TransferListItem[] = []): void {
    if (this.ended === null) this.worker.postMessage({ ask: false, body: message } satisfies Envelope, transfer);
  }

  /** Sends a message and resolves with its answer; rejects if the handler threw or the thread ends first. */
  ask(message: In, transfer: readonly TransferListItem[] = []): Promise<Out> {
    if (this.ended !== null) return Promise.reject(this.ended);
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ask: true, body: message } satisfies Envelope, transfer);
    });
  }

  /** Ends the thread; questions still waiting are rejected. */
  async exit(): Promise<void> {
    this.exiting = true;
    await this.worker.terminate();
  }

  private end(error: Error): void {
    if (this.ended !== null) return;
    this.ended = error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
    if (!this.exiting) this.onExit?.(error);
  }
}

/** Starts the worker file `file` (written `new URL('./name.worker.ts', import.meta.url)`). */
export function startWorker<In, Out>(file: URL, options: WorkerStartOptions = {}): WorkerThread<In, Out> {
  return new WorkerThread<In, Out>(file, options);
}

/**
 * In a worker file: hands each message to `handle`; an asked one is answered with what it returns
 * (awaited when it is a promise; its buffers moved, not copied, when `transferOf` names them), or
 * with the error it threw or that sending the answer met. While an answer is awaited, the messages
 * after it wait their turn, so answers still come back in the order asked.
 */
export function answerMessages<In, Out>(
  handle: (message: In) => Out | Promise<Out>,
  transferOf: (answer: Out) => readonly TransferListItem[] = () => [],
): void {
  const port = parentPort;
  if (port === null) throw new Error('answerMessages() runs in a worker thread');
  const fail = (error: unknown) =>
    port.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies Answer);
  const send = (value: Out) => {
    try {
      port.postMessage({ value } satisfies Answer, transferOf(value));
    } catch (error) {
      // The answer cannot be copied back (nested too deep to clone).
      fail(error);
    }
  };
  let pending: Promise<void> | null = null;
  const run = ({ ask, body }: Envelope): Promise<void> | null => {
    if (!ask) {
      const told = handle(body as In);
      return told instanceof Promise ? told.then(() => {}) : null;
    }
    let value: Out | Promise<Out>;
    try {
      value = handle(body as In);
    } catch (error) {
      fail(error);
      return null;
    }
    if (value instanceof Promise) return value.then(send, fail);
    send(value);
    return null;
  };
  port.on('message', (envelope: Envelope) => {
    const turn: Promise<void> | null =
      pending === null ? run(envelope) : pending.then(() => run(envelope) ?? undefined);
    if (turn === null) return;
    pending = turn;
    void turn.finally(() => {
      if (pending === turn) pending = null;
    });
  });
}

/** The thread's first code from the sources: register tsx there, then load the `.ts` worker file. */
function sourceLoader(file: URL): string {
  const tsx = fileURLToPath(import.meta.resolve('tsx/cjs/api'));
  return `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(fileURLToPath(file))});`;
}
