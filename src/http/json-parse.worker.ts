// Parses one large JSON body of the insert on a worker thread (json-off-thread.ts starts one per
// body, with bounded memory) and sends back only what the insert reads: `file` when it is a
// string, and every other value only as the kind of value it is (a stand-in: '' for a string, []
// for an array…), so that validation says what it would of the whole value and a hostile body's
// millions of values are never copied back to the main thread. Keys that
// would reach an object's prototype if the value were ever merged are refused, as Fastify's own
// JSON parser refuses them (looked for with a stack, so that deep nesting cannot overflow it); a
// leading byte order mark is dropped, as Fastify drops it.
import { answerMessages } from '../worker-thread.ts';

const own = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

function reachesPrototype(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (own(node, '__proto__')) return true;
    const ctor: unknown = own(node, 'constructor') ? (node as { constructor: unknown }).constructor : undefined;
    if (ctor !== null && typeof ctor === 'object' && own(ctor, 'prototype')) return true;
    for (const key in node) stack.push((node as Record<string, unknown>)[key]);
  }
  return false;
}

/** A value of the same JSON kind, and small. */
const standIn = (value: unknown): unknown =>
  value === null || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : typeof value === 'string'
      ? ''
      : Array.isArray(value)
        ? []
        : {};

/** More members than this are not sent back: validation names the first unknown one anyway. */
const MAX_MEMBERS = 20;

/** What the insert reads of the body (see the header). */
export function whatTheInsertReads(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return standIn(value);
  const read: Record<string, unknown> = {};
  let members = 0;
  for (const [key, member] of Object.entries(value)) {
    read[key] = key === 'file' && typeof member === 'string' ? member : standIn(member);
    if (++members >= MAX_MEMBERS) break;
  }
  return read;
}

/** What the insert reads of the body; throws (answered as an error) when it is not JSON or reaches a prototype. */
answerMessages<Uint8Array, unknown>((bytes) => {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const value: unknown = JSON.parse(text);
  if (reachesPrototype(value)) throw new Error('the body names a prototype key');
  return whatTheInsertReads(value);
});
