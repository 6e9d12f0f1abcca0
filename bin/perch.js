#!/usr/bin/env node
// The `perch` command: runs the compiled entry point in dist/ (which `npm install` builds), so no
// TypeScript compiler is loaded.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('perch: not built yet; run `npm install` (or `npm run build`) in its folder first.\n');
  process.exit(1);
}
await import(entry.href);
