// Compiles src/ and demo/ into dist/ (plain JavaScript: `npm start`, `perch` and the production
// command run it with no TypeScript compiler loaded) and copies the other files they read at run
// time (the dashboard's assets). Run by `npm install`/`npm ci` (prepare) and before `npm start`,
// `npm run demo`, `npm run perch` and `npm test`; it does nothing when dist/ was built from the
// same sources, so those stay quick. Usage: node scripts/build.mjs [--force]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(root, 'dist');
/** Holds a hash of everything the build read; dist/ is current when it matches. */
const STAMP = '.build-inputs';
const SOURCES = ['src', 'demo'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'];

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const typescriptVersion = JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')).version;

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
    });
}

function inputsHash(files) {
  const hash = createHash('sha256').update(`typescript ${typescriptVersion}\n`);
  for (const file of [...CONFIGS.map((name) => join(root, name)), ...files]) {
    hash.update(`${relative(root, file)}\n`).update(readFileSync(file));
  }
  return hash.digest('hex');
}

// The folders' READMEs are neither compiled nor copied, so editing one does not make dist/ stale.
const sources = SOURCES.flatMap((dir) => filesUnder(join(root, dir))).filter((file) => !file.endsWith('.md'));
const wanted = inputsHash(sources);
const current = existsSync(join(DIST, STAMP)) ? readFileSync(join(DIST, STAMP), 'utf8').trim() : null;
if (current === wanted && !process.argv.includes('--force')) process.exit(0);

// Built beside dist/ and swapped in at the end, so a running server never sees a half-built tree
// and an interrupted build leaves the previous one (whose stamp no longer matches) in place.
const staging = join(root, 'node_modules', '.cache', `perch-build-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
process.stderr.write('perch: compiling src/ and demo/ into dist/\n');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', staging], {
  cwd: root,
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.stderr.write(`perch: the build failed (tsc exit ${compiled.status ?? compiled.signal})\n`);
  process.exit(1);
}
// Files read at run time next to the code (the dashboard's CSS and scripts).
for (const file of sources) {
  if (file.endsWith('.ts')) continue;
  const target = join(staging, relative(root, file));
  mkdirSync(dirname(target), { recursive: true });
  cpSync(file, target);
}
writeFileSync(join(staging, STAMP), `${wanted}\n`);

const previous = join(root, 'node_modules', '.cache', `perch-old-${process.pid}`);
if (existsSync(DIST)) renameSync(DIST, previous);
renameSync(staging, DIST);
rmSync(previous, { recursive: true, force: true });
