// Runs every test file with Node's test runner (through tsx); Node 20 has no glob support in --test.
// Usage: node scripts/run-tests.mjs [--store-only] [--list] [folder-or-file ...]   (default: test/)
// --list prints the files it would run, and runs nothing.
// --store-only keeps the files whose outcome can depend on the store: those that reach
// test/helpers/store-url.ts (or read TEST_DATABASE_URL) through their own imports. CI runs the
// whole suite on SQLite, then these files again on PostgreSQL; the others never open a store
// of the environment's choosing, so a second run would only repeat the first.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

function collect(path) {
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => (name === 'fakes' || name === 'helpers' ? [] : collect(join(path, name))));
}

const STORE_URL_HELPER = resolve('test/helpers/store-url.ts');
const TEST_ROOT = resolve('test');

function relativeImports(path) {
  const text = readFileSync(path, 'utf8');
  const targets = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    resolve(dirname(path), m[1]),
  );
  return { text, targets: targets.filter((target) => target.startsWith(TEST_ROOT)) };
}

/** Whether a test file reaches the store helper (or reads TEST_DATABASE_URL) through its imports inside test/. */
function storeDependent(file) {
  const seen = new Set();
  const pending = [resolve(file)];
  while (pending.length > 0) {
    const path = pending.pop();
    if (path === STORE_URL_HELPER) return true;
    if (seen.has(path)) continue;
    seen.add(path);
    const { text, targets } = relativeImports(path);
    if (text.includes('TEST_DATABASE_URL')) return true;
    pending.push(...targets);
  }
  return false;
}

const args = process.argv.slice(2);
const storeOnly = args.includes('--store-only');
const listOnly = args.includes('--list');
const roots = args.filter((arg) => !arg.startsWith('--'));
const files = (roots.length > 0 ? roots : ['test'])
  .flatMap(collect)
  .filter((file) => !storeOnly || storeDependent(file));
if (listOnly) {
  console.log(files.join('\n'));
  process.exit(0);
}
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  // No test reaches the real Jetstream: a test that wants a stream starts a local one and names it.
  { stdio: 'inherit', env: { BLUESKY_JETSTREAM_URL: 'off', ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
