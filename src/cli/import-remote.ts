// `perch import FILE --url URL`: stream the file to a running server's POST /api/admin/insert.
import type { ImportReport } from '../services/import-accounts.ts';
import { openCsvFile, printReport, unreadable, type ImportEstimate, type ImportOptions } from './import-file.ts';
import { CliError, EXIT, clean, describeProblem, printJson, quote } from './output.ts';
import { startProgress } from './progress.ts';

/** `{url}/api/admin/insert`, from the server's base address (with or without a trailing /api). */
function insertEndpoint(url: string): URL {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new CliError(`perch: --url must be an http(s) address such as http://127.0.0.1:3000 (got ${quote(url)}).`, {
      exitCode: EXIT.usage,
    });
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new CliError(`perch: --url must start with http:// or https:// (got ${quote(url)}).`, {
      exitCode: EXIT.usage,
    });
  const path = base.pathname.replace(/\/+$/, '').replace(/\/api$/, '');
  return new URL(`${path}/api/admin/insert`, base.origin);
}

/** The file as it is read, counting the bytes handed to the connection. */
async function* counted(
  chunks: AsyncIterable<Buffer>,
  onBytes: (sent: number) => void,
  onEnd: () => void,
): AsyncGenerator<Uint8Array> {
  let sent = 0;
  for await (const chunk of chunks) {
    sent += chunk.length;
    onBytes(sent);
    yield chunk;
  }
  onEnd();
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is perch running there?)',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the server closed the connection',
};

/** Why fetch failed, in words: undici puts the network error (ECONNREFUSED…) in `cause`. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return (code ? NETWORK_REASONS[code] : undefined) ?? cause.message;
  }
  return error instanceof Error ? error.message : String(error);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!/json/i.test(response.headers.get('content-type') ?? '')) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export async function importThroughServer(file: string, url: string, options: ImportOptions): Promise<void> {
  const endpoint = insertEndpoint(url);
  const apiKey = options.apiKey ?? (process.env.PERCH_API_KEY?.trim() || process.env.ADMIN_API_KEY?.trim());
  if (!apiKey)
    throw new CliError(
      'perch: --url needs an admin API key: set PERCH_API_KEY (or ADMIN_API_KEY), or pass --api-key.',
      { exitCode: EXIT.usage },
    );

  const { stream, size } = await openCsvFile(file);
  const sending = startProgress('sending', size, 'bytes');
  let response: Response;
  let body: unknown;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'text/csv',
        'x-api-key': apiKey,
        accept: 'application/json, application/problem+json',
      },
      body: counted(
        stream,
        (sent) => sending.update(sent),
        () => {
          sending.stop();
          if (process.stderr.isTTY) process.stderr.write('sent; the server is writing the import…\n');
        },
      ),
      duplex: 'half',
      // A redirect cannot replay a streamed body, and would send the key wherever it points.
      redirect: 'manual',
    });
    body = await readBody(response);
  } catch (error) {
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    if (cause?.syscall !== undefined && cause.path !== undefined) throw unreadable(file, cause);
    throw new CliError(`perch: could not reach ${endpoint.origin}: ${clean(networkReason(error))}.`, { cause: error });
  } finally {
    sending.stop();
    stream.destroy();
  }

  if (response.ok && body !== null && typeof body === 'object' && (body as { success?: unknown }).success === true) {
    if (options.json) printJson(body);
    else {
      const { estimate } = body as { estimate?: ImportEstimate };
      printReport(file, body as ImportReport, `through ${endpoint.origin}`, estimate);
    }
    return;
  }
  if (body !== null && typeof body === 'object' && 'code' in body) {
    throw new CliError(describeProblem(body), { json: body });
  }
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    throw new CliError(
      `perch: ${endpoint.origin} redirected the upload${location ? ` to ${quote(location)}` : ''}; pass the final address as --url.`,
    );
  }
  throw new CliError(
    `perch: ${endpoint.origin} answered HTTP ${response.status} without a perch report; is --url the address of a perch server?`,
  );
}
