// perch(args, env): runs the real `perch` command in a child process, with only the given configuration.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SECRET = 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `perch …` from the TypeScript sources through tsx (as `npm run dev` does), so a test runs the
 * code it is edited beside with no build in between; production-start.test.ts runs the compiled build.
 */
export function perch(args: string[], env: Record<string, string>): Promise<CliResult> {
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: ROOT,
    env: {
      ...inherited,
      ADMIN_API_KEY: '',
      PERCH_URL: '',
      PERCH_API_KEY: '',
      LOG_LEVEL: 'silent',
      BLUESKY_JETSTREAM_URL: 'off',
      KEY_HASH_SECRET: SECRET,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
