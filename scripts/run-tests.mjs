// Runs every test file with Node's test runner (through tsx); Node 20 has no glob support in --test.
// Usage: node scripts/run-tests.mjs [folder-or-file ...]   (default: test/)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(path) {
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => (name === 'fakes' || name === 'helpers' ? [] : collect(join(path, name))));
}

const roots = process.argv.slice(2);
const files = (roots.length > 0 ? roots : ['test']).flatMap(collect);
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
