// Parses one large JSON body on a worker thread (json-off-thread.ts starts one per body). Keys that
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

/** The body's value; throws (answered as an error) when it is not JSON or reaches a prototype. */
answerMessages<Uint8Array, unknown>((bytes) => {
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const value: unknown = JSON.parse(text);
  if (reachesPrototype(value)) throw new Error('the body names a prototype key');
  return value;
});
