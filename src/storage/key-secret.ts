// The server secret under which API keys are hashed: KEY_HASH_SECRET, or in embedded mode a
// random one generated once and kept beside the database, readable by its owner only.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function resolveKeyHashSecret(configured: string | null, dataDir: string | null): string {
  if (configured !== null) return configured;
  if (dataDir === null) return randomBytes(32).toString('base64url'); // in-memory store: keys die with the process anyway
  const path = join(dataDir, 'key-hash-secret');
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(path, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(path, 0o600);
  return readFileSync(path, 'utf8').trim();
}
