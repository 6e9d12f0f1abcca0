// The process logger: JSON lines (pretty on a terminal), with API keys kept out of every record.
import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

const KEY_IN_TEXT = /perch_[0-9A-Za-z]{20,}/g;

/** `text` with anything that looks like a key blanked out (most URLs hold none: checked first). */
export function redactKeys(text: string): string {
  return text.includes('perch_') ? text.replace(KEY_IN_TEXT, '[redacted]') : text;
}

/** Request summary for logs: the URL with anything that looks like a key blanked out. */
function requestSummary(request: { method?: string; url?: string; ip?: string; id?: unknown }) {
  return {
    method: request.method,
    url: request.url === undefined ? undefined : redactKeys(request.url),
    ip: request.ip,
    id: request.id,
  };
}

/**
 * Standard output written asynchronously and in batches: lines are collected until 4 KiB (about
 * twenty access lines) or 200 ms have gathered, then written together off the event loop, instead
 * of one write (a system call on the event loop) per line. What is held is written before the
 * process exits, however it exits: a clean stop waits for it (flushLogger), and pino writes it out
 * synchronously on `exit` (a crash too). Only a SIGKILL can lose the last 200 ms of lines.
 */
function batchedStdout(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 200 });
}

export function createLogger(
  level: string,
  options: { pretty?: boolean; destination?: pino.DestinationStream } = {},
): Logger {
  const pretty = options.pretty ?? (process.stdout.isTTY === true && options.destination === undefined);
  const destination = options.destination ?? (pretty || level === 'silent' ? undefined : batchedStdout());
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'headers["x-api-key"]',
          'apiKey',
          '*.apiKey',
          'adminApiKey',
          'keyHashSecret',
        ],
        censor: '[redacted]',
      },
      serializers: { req: requestSummary, err: pino.stdSerializers.err },
    },
    pretty ? prettyStream() : destination,
  );
}

/**
 * Human-readable lines for a terminal, formatted in this thread: pino's transport would start a
 * worker thread (a second V8 heap, ~15 MiB) for what only a person at a terminal reads. Loaded only
 * then, so a service whose output is a pipe or a file never loads pino-pretty.
 */
function prettyStream(): pino.DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pretty({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}

/** Writes out what the logger still holds; resolves within `timeoutMs` whatever happens. */
export function flushLogger(logger: Logger, timeoutMs = 1_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    try {
      logger.flush(() => {
        clearTimeout(timer);
        resolve();
      });
    } catch {
      // A destination without flush (a test's stream) holds nothing.
      clearTimeout(timer);
      resolve();
    }
  });
}
