// Large JSON bodies are parsed on a worker thread. One JSON.parse of the 13 MB `{"file": …}` of a
// million-name import held the event loop for about 100 ms: health probes and every other request
// waited behind it. Small bodies are parsed here as usual (a thread costs more than they do).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import { startWorker, WorkerAnswerError } from '../worker-thread.ts';

/** Bodies at least this large go to a thread (JSON.parse takes a few ms per MiB). */
export const OFF_THREAD_BYTES = 1_048_576;

const notJson = () => new PerchError('invalid_json', 'The body is not valid JSON.');
const tooMuch = () =>
  new PerchError(
    'body_too_large',
    'The JSON body holds more values than can be parsed; send the CSV as the "file" string, or as text/csv.',
  );

/**
 * The thread's heap for a body of `bytes`: room for the text, its value and the `file` string
 * (about three times the body) over a base, so that a body that parses into millions of small
 * values ends the thread, not the process. The base holds the thread's own code (tsx in tests).
 */
export const threadHeapMb = (bytes: number): number => 96 + Math.ceil((4 * bytes) / 1_048_576);

/** Bodies wait for each other: each holds a few copies of itself while parsed (body, text, value). */
let turn: Promise<unknown> = Promise.resolve();

/** Parses `body` (UTF-8 JSON) on a worker thread, one body at a time; a body that is not JSON is invalid_json. */
export function parseJsonOffThread(body: Buffer): Promise<unknown> {
  const parsed = turn.then(() => parseOnThread(body));
  turn = parsed.catch(() => {});
  return parsed;
}

async function parseOnThread(body: Buffer): Promise<unknown> {
  // The body's memory moves to the thread when it is the whole of its buffer; otherwise it is copied.
  const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  const data = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const thread = startWorker<Uint8Array, unknown>(new URL('./json-parse.worker.ts', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: threadHeapMb(body.byteLength), maxYoungGenerationSizeMb: 16 },
  });
  try {
    return await thread.ask(data, whole ? [data.buffer as ArrayBuffer] : []);
  } catch (error) {
    if (error instanceof WorkerAnswerError) throw notJson();
    // The thread ran out of its heap (ERR_WORKER_OUT_OF_MEMORY): the body is too much to parse.
    if (error instanceof Error && 'code' in error && error.code === 'ERR_WORKER_OUT_OF_MEMORY') throw tooMuch();
    throw error;
  } finally {
    void thread.exit();
  }
}

/**
 * Replaces the JSON parser of the routes in `app`'s scope with one that sends large bodies to a
 * thread; the rest keep Fastify's parser and its answers.
 */
export function parseLargeJsonOffThread(app: FastifyInstance): void {
  const parseHere = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body, done) => {
    const buffer = body as Buffer;
    if (buffer.byteLength < OFF_THREAD_BYTES) return parseHere(request, buffer.toString('utf8'), done);
    parseJsonOffThread(buffer).then(
      (value) => done(null, value),
      (error: unknown) => done(error as Error, undefined),
    );
  });
}
