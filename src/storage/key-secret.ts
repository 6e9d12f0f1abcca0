// The server secret under which API keys are hashed: KEY_HASH_SECRET, or in embedded mode a
// random one generated once and kept beside the database, readable by its owner only.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Shorter than this, a secret is refused: guessable, or a file cut short by a crash or a full disk. */
export const MIN_SECRET_LENGTH = 32;

export function resolveKeyHashSecret(configured: string | null, dataDir: string | null): string {
  if (configured !== null) return configured;
  if (dataDir === null) return randomBytes(32).toString('base64url'); // in-memory store: keys die with the process anyway
  const path = join(dataDir, 'key-hash-secret');
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    // Written whole to a temporary file, then linked into place: a crash or a full disk never leaves
    // a short secret behind, and link (unlike rename) fails if another process got there first.
    const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeFileSync(temporary, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flush: true });
      linkSync(temporary, path);
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  chmodSync(path, 0o600);
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `${path} holds a secret shorter than ${MIN_SECRET_LENGTH} characters; restore it from a backup (keys hashed under it stop working otherwise)`,
    );
  }
  return secret;
}
