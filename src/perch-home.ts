// perch's own folder (the one holding package.json and `.env`), found from where this file is, so
// the TypeScript sources (src/, through tsx) and the compiled build (dist/src/) agree on it.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `start` that holds a package.json (dist/ never does). */
export function packageFolder(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json in ${start} or above it`);
  }
}

export const PERCH_HOME = packageFolder(dirname(fileURLToPath(import.meta.url)));
