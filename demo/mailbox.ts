// The demo's mailbox: a local SMTP server (smtp-server) that keeps every message perch sends as an
// .eml file in the demo's folder and says so on the terminal, so a digest is seen with no account.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

export async function startMailbox(dir: string): Promise<{ url: string; dir: string }> {
  const folder = join(dir, 'mail');
  mkdirSync(folder, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const subject = /^Subject: (.*)$/im.exec(raw.toString('utf8'))?.[1] ?? '(no subject)';
        count += 1;
        const file = join(folder, `${String(count).padStart(3, '0')}.eml`);
        writeFileSync(file, raw);
        process.stdout.write(
          `  mail received: ${subject}\n    → ${file} (open it in a mail client, or see /ui/mail)\n`,
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  server.server.unref();
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, dir: folder };
}
