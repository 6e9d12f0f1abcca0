// A local webhook receiver over real HTTP that records what it is sent and answers as told, and an
// independent Standard Webhooks signature check (node:crypto only, not the library perch signs with).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers the next requests with these statuses, then 200. */
  answers: number[];
  /** Never answer (a hanging endpoint). */
  hang: boolean;
  /** Answers the requests held while hanging, with 200. */
  release(): void;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook', port = 0): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answers: [],
    hang: false,
    release: () => hanging.splice(0).forEach((res) => res.writeHead(200).end('ok')),
    close: async () => {},
  };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      receiver.received.push({ headers: req.headers, body });
      if (receiver.hang) return void hanging.push(res);
      const status = receiver.answers.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return receiver;
}

/** The spec's check: HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the secret's base64 part. */
export function verifySignature(secret: string, received: Received): boolean {
  const id = String(received.headers['webhook-id']);
  const timestamp = String(received.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${received.body}`).digest();
  return String(received.headers['webhook-signature'])
    .split(' ')
    .some((sig) => {
      const [version, value] = sig.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
