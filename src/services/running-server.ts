// A server on an embedded store says where it listens, in `server.json` beside the database, so
// `perch import FILE` can send the file through it instead of competing for SQLite's one writer.
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'server.json';

/** Writes the notice (owner-only, atomically) and returns what removes it at shutdown. */
export function announceServer(dataDir: string, url: string): () => void {
  const path = join(dataDir, FILE);
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, JSON.stringify({ pid: process.pid, url }), { mode: 0o600 });
  renameSync(temporary, path);
  return () => {
    // Only our own notice: a server started later on the same store may have replaced it.
    if (findRunningServer(dataDir)?.pid === process.pid) rmSync(path, { force: true });
  };
}

/** The server announced in `dataDir`, if its process is still alive. */
export function findRunningServer(dataDir: string): { pid: number; url: string } | null {
  let notice: { pid?: unknown; url?: unknown };
  try {
    notice = JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')) as typeof notice;
  } catch {
    return null;
  }
  if (typeof notice.pid !== 'number' || typeof notice.url !== 'string') return null;
  try {
    process.kill(notice.pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's; ESRCH: gone (a crash left the notice behind).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return { pid: notice.pid, url: notice.url };
}

/** The address a local command reaches a server listening on `host`:`port` at. */
export function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
