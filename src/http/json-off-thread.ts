// Large JSON bodies are parsed on a worker thread. One JSON.parse of the 13 MB `{"file": …}` of a
// million-name import held the event loop for about 100 ms: health probes and every other request
// waited behind it. Small bodies are parsed here as usual (a thread costs more than they do).
import { Worker } from 'node:worker_threads';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PerchError } from '../domain/errors.ts';

/** Bodies at least this large go to a thread (JSON.parse takes a few ms per MiB). */
export const OFF_THREAD_BYTES = 1_048_576;

// Keys that would reach an object's prototype if the value were ever merged are refused, as
// Fastify's own JSON parser refuses them (looked for with a stack, so that deep nesting cannot
// overflow it); a leading byte order mark is dropped, as Fastify drops it.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const forbidden = (value) => {
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.prototype.hasOwnProperty.call(node, '__proto__')) return true;
    const ctor = Object.prototype.hasOwnProperty.call(node, 'constructor') ? node.constructor : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.prototype.hasOwnProperty.call(ctor, 'prototype')) return true;
    for (const key in node) stack.push(node[key]);
  }
  return false;
};
try {
  let text = Buffer.from(workerData).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const value = JSON.parse(text);
  parentPort.postMessage(forbidden(value) ? { ok: false } : { ok: true, value });
} catch (error) {
  parentPort.postMessage({ ok: false });
}
`;

const notJson = () => new PerchError('invalid_json', 'The body is not valid JSON.');

/** Bodies wait for each other: each holds a few copies of itself while parsed (body, text, value). */
let turn: Promise<unknown> = Promise.resolve();

/** Parses `body` (UTF-8 JSON) on a worker thread, one body at a time; a body that is not JSON is invalid_json. */
export function parseJsonOffThread(body: Buffer): Promise<unknown> {
  const parsed = turn.then(() => parseOnThread(body));
  turn = parsed.catch(() => {});
  return parsed;
}

function parseOnThread(body: Buffer): Promise<unknown> {
  // The body's memory moves to the thread when it is the whole of its buffer; otherwise it is copied.
  const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  const data = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    execArgv: [],
    workerData: data,
    transferList: whole ? [data.buffer as ArrayBuffer] : [],
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (message: { ok: boolean; value?: unknown }) => {
      void worker.terminate();
      if (message.ok) resolve(message.value);
      else reject(notJson());
    });
    worker.once('error', (error) => reject(error));
    worker.once('exit', (code) => reject(new Error(`the JSON thread ended (${code}) before it answered`)));
  });
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
