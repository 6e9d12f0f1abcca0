// The production start as the README documents it: `node dist/src/main.js serve`, run directly by
// a process manager, is compiled JavaScript that loads no TypeScript compiler, serves, and on
// SIGTERM exits 0 within the contract's 10 s, leaving its port free.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.ts';

/** The compiled entry point; the README's production command is `node dist/src/main.js serve`. */
const ENTRY = 'dist/src/main.js';
const SHUTDOWN_BOUND_MS = 10_000;
const ADMIN_KEY = 'production-admin-key-0123456789abcdefghijklmn';

/** The environment of this test process minus what would change how node starts (loaders, test runner). */
function plainEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _options, NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
  return { ...inherited, BLUESKY_JETSTREAM_URL: 'off', ...extra };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  probe.close();
  await once(probe, 'close');
  return port;
}

/** Whether a new listener may bind `port` (the old process let go of it). */
async function portIsFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((done) => {
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** Every module specifier of a compiled file: static imports and exports, and literal dynamic imports. */
function specifiers(source: string): string[] {
  const found = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g)].map(
    (match) => match[1] ?? '',
  );
  found.push(...[...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((match) => match[1] ?? ''));
  found.push(...[...source.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)].map((match) => match[1] ?? ''));
  return found;
}

const COMPILERS = /^(?:tsx|typescript|esbuild|ts-node|@swc\/|@esbuild\/)/;

describe('the production start (node dist/src/main.js serve)', () => {
  let dir: string;

  before(() => {
    // `npm test` builds first (pretest); this makes a lone run of this file safe too. The build
    // does nothing when dist/ was built from the current sources, and rebuilds otherwise.
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], {
      cwd: ROOT,
      env: plainEnv({}),
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, `the build failed: ${build.stderr}`);
    dir = mkdtempSync(join(tmpdir(), 'perch-production-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is what npm start, npm run perch, npm run demo and bin/perch.js run', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(scripts.start, `node ${ENTRY} serve`);
    assert.equal(scripts.perch, `node ${ENTRY}`);
    assert.equal(scripts.demo, `node ${ENTRY} demo`);
    assert.match(readFileSync(join(ROOT, 'bin/perch.js'), 'utf8'), /\.\.\/dist\/src\/main\.js/);
    const version = spawnSync(process.execPath, ['bin/perch.js', '--version'], {
      cwd: ROOT,
      env: plainEnv({}),
      encoding: 'utf8',
    });
    assert.equal(version.status, 0, version.stderr);
    assert.equal(
      version.stdout.trim(),
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    );
  });

  it('is plain JavaScript: no compiler imported, every relative import names a compiled file that exists', () => {
    const files = filesUnder(join(ROOT, 'dist')).filter((file) => file.endsWith('.js'));
    assert.ok(
      files.some((file) => file.endsWith(join('dist', 'demo', 'run.js'))),
      'the demo is compiled too',
    );
    assert.ok(existsSync(join(ROOT, 'dist/src/ui/assets/app.css')), "the dashboard's assets are copied");
    for (const file of files) {
      for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
        assert.doesNotMatch(specifier, COMPILERS, `${file} imports ${specifier}`);
        if (!specifier.startsWith('.')) continue;
        assert.ok(specifier.endsWith('.js'), `${file} imports ${specifier}`);
        assert.ok(existsSync(resolve(dirname(file), specifier)), `${file} imports ${specifier}, which is missing`);
      }
    }
  });

  it('serves, and on SIGTERM exits 0 within 10 s with its port free', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [ENTRY, 'serve'], {
      cwd: ROOT,
      env: plainEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${join(dir, 'perch.db')}`,
        ADMIN_API_KEY: ADMIN_KEY,
        KEY_HASH_SECRET: 'production-secret-0123456789abcdefghijklmnopqrstuv',
        LOG_LEVEL: 'info',
        // The tracker runs (as in production) but has nothing to check; no request leaves the machine.
        X_API_BASE_URL: 'http://127.0.0.1:9',
        BLUESKY_API_BASE_URL: 'http://127.0.0.1:9',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
    child.stderr.on('data', (chunk: Buffer) => (output += String(chunk)));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitUntilReady(`${base}/api/health`, child, () => output);
      // The dashboard reads its assets from beside the compiled code.
      const page = await fetch(`${base}/ui/sign-in`);
      assert.equal(page.status, 200);
      const css = /\/ui\/assets\/app\.[0-9a-f]+\.css/.exec(await page.text())?.[0];
      assert.ok(css, 'the sign-in page names the stylesheet');
      assert.equal((await fetch(`${base}${css}`)).status, 200);
      // A JSON import over 1 MiB of more than 20,000 names: the compiled worker files parse the
      // body and sort the names on their threads.
      const names = Array.from({ length: 70_000 }, (_, i) => `u${String((i * 7_919) % 70_000).padStart(14, '0')}`);
      const imported = await fetch(`${base}/api/admin/insert`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
        body: JSON.stringify({ file: names.join('\n') }),
      });
      const report = (await imported.json()) as { inserted?: number };
      assert.equal(imported.status, 200, JSON.stringify(report));
      assert.equal(report.inserted, names.length);

      if (existsSync(`/proc/${child.pid}`)) {
        // Plain node on a .js file, and no child process: tsx would run esbuild as one.
        const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        assert.deepEqual(argv.slice(1), [ENTRY, 'serve']);
        const children = readdirSync(`/proc/${child.pid}/task`)
          .map((task) => readFileSync(`/proc/${child.pid}/task/${task}/children`, 'utf8').trim())
          .filter(Boolean);
        assert.deepEqual(children, [], 'the server started no child process');
      }

      const stopped = Date.now();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), SHUTDOWN_BOUND_MS);
      const [code, signal] = await exited;
      clearTimeout(timer);
      assert.ok(Date.now() - stopped < SHUTDOWN_BOUND_MS, `took ${Date.now() - stopped} ms to stop`);
      assert.equal(signal, null, `killed by ${signal}; output:\n${output}`);
      assert.equal(code, 0, `exit code ${code}; output:\n${output}`);
      assert.ok(await portIsFree(port), `port ${port} is still held`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

/** Polls the readiness probe until it answers 200; fails if the server exits or after a generous minute. */
async function waitUntilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}; output:\n${output()}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`not ready after 60 s; output:\n${output()}`);
}
