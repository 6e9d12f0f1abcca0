// A raw HTTP/1.1 client for tests of what happens on the wire: connection closes, interim
// responses, uploads the server stops reading. Nothing is parsed for the test but the response head.
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { TestApp } from './app.ts';

export async function listen(test: TestApp): Promise<number> {
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  return (test.app.server.address() as AddressInfo).port;
}

/** A raw connection that records what it receives and when it closes. */
export interface RawClient {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
  isClosed: () => boolean;
}

export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect({ port, host: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  // A reset after the answer is expected: the server stops reading what we still send.
  socket.on('error', () => {});
  const closedPromise = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  return { socket, received: () => text, closed: closedPromise, isClosed: () => closed };
}

/** Resolves once a whole response (head and content-length body) has arrived, or the socket closed. */
export async function responseOf(client: RawClient, timeoutMs = 5_000): Promise<{ head: string; body: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = client.received();
    const end = text.indexOf('\r\n\r\n');
    if (end >= 0) {
      const head = text.slice(0, end);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (text.length >= end + 4 + length || client.isClosed())
        return { head, body: text.slice(end + 4, end + 4 + length) };
    }
    if (client.isClosed() || Date.now() > deadline) return { head: text, body: '' };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>(
    (_resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `use` on a fresh connection, closed afterwards: app.close() would wait for a busy one. */
export async function withClient(port: number, use: (client: RawClient) => Promise<void>): Promise<void> {
  const client = await rawClient(port);
  try {
    await use(client);
  } finally {
    client.socket.destroy();
  }
}
