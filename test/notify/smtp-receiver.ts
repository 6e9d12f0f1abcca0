// A real SMTP server on loopback (smtp-server) that keeps every message it accepted, parsed by
// mailparser; `refuse(n, code)` makes it refuse the next n messages at DATA with that reply.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface SmtpReceiver {
  url: string;
  messages: ParsedMail[];
  /** Envelope recipients of each accepted message, in order. */
  envelopes: string[][];
  refuse(count: number, code?: number): void;
  /** How many messages it refused so far. */
  refused: number;
  close(): Promise<void>;
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  let refuseNext = 0;
  let refuseCode = 451;
  const receiver: SmtpReceiver = {
    url: '',
    messages: [],
    envelopes: [],
    refused: 0,
    refuse(count, code = 451) {
      refuseNext = count;
      refuseCode = code;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refuseNext > 0) {
          refuseNext -= 1;
          receiver.refused += 1;
          const error = Object.assign(new Error('try again later'), { responseCode: refuseCode });
          callback(error);
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            receiver.messages.push(parsed);
            receiver.envelopes.push(session.envelope.rcptTo.map((r) => r.address));
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  receiver.url = `smtp://127.0.0.1:${port}`;
  return receiver;
}
