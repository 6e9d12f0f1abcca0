// Large JSON bodies are parsed on a worker thread. One JSON.parse of the 13 MB `{"file": …}` of a
// million-name import held the event loop for about 100 ms: health probes and every other request
// waited behind it. Small bodies are parsed here as usual (a thread costs more than they do).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PerchError } from '../domain/errors.ts';
import { startWorker, WorkerAnswerError } from '../worker-thread.ts';

/** Bodies at least this large go to a thread (JSON.parse takes a few ms per MiB). */
export const OFF_THREAD_BYTES = 1_048_576;

const notJson = () => new PerchError('invalid_json', 'The body is not valid JSON.');

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
  const thread = startWorker<Uint8Array, unknown>(new URL('./json-parse.worker.ts', import.meta.url));
  try {
    return await thread.ask(data, whole ? [data.buffer as ArrayBuffer] : []);
  } catch (error) {
    throw error instanceof WorkerAnswerError ? notJson() : error;
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
