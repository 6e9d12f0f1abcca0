// Runs the benchmarks in bench/*.ts one after another, each in its own Node process (through tsx).
// Usage: node scripts/run-bench.mjs [name ...]   e.g. `npm run bench`, `npm run bench -- read`
// A missed target is reported by the bench, not by the exit code; only a bench that fails exits non-zero.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const available = readdirSync(join(root, 'bench'))
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
  .sort()
  .map((name) => basename(name, '.ts'));

const asked = process.argv.slice(2).map((arg) => basename(arg).replace(/\.ts$/, ''));
const unknown = asked.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown bench: ${unknown.join(', ')} (available: ${available.join(', ')})`);
  process.exit(2);
}
const selected = asked.length > 0 ? asked : available;

console.log(
  `perch benchmarks, ${new Date().toISOString()}, Node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM`,
);
let failed = 0;
for (const [index, name] of selected.entries()) {
  console.log(`\n=== bench/${name}.ts (${index + 1}/${selected.length}) ${'='.repeat(Math.max(0, 60 - name.length))}`);
  const started = Date.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', join('bench', `${name}.ts`)], {
    cwd: root,
    stdio: 'inherit',
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (result.status !== 0) {
    failed += 1;
    console.log(`\n  bench/${name}.ts FAILED (exit ${result.status ?? result.signal}) after ${seconds} s`);
  } else {
    console.log(`\n  (bench/${name}.ts took ${seconds} s)`);
  }
}
process.exit(failed > 0 ? 1 : 0);
