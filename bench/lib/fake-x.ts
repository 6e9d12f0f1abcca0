// Starts the local X server of lib/fake-x-child.ts in its own process and talks to it over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import type { FakeXCommand, FakeXStats } from './fake-x-child.ts';

export interface FakeXChild {
  url: string;
  child: ChildProcess;
  /** Sends one command and resolves with the child's answer (commands go one at a time). */
  ask(command: FakeXCommand): Promise<{ type: string; stats?: FakeXStats }>;
  stats(): Promise<FakeXStats>;
  stop(): void;
}

export async function startFakeXChild(users: number): Promise<FakeXChild> {
  const child = fork(new URL('./fake-x-child.ts', import.meta.url).pathname, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FAKE_X_USERS: String(users) },
  });
  process.on('exit', () => child.kill('SIGKILL'));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve(m.url));
    child.once('exit', (code) => reject(new Error(`the local X server exited with code ${code} before it was ready`)));
  });
  const ask = (command: FakeXCommand) =>
    new Promise<{ type: string; stats?: FakeXStats }>((resolve) => {
      child.once('message', resolve);
      child.send(command);
    });
  const stats = async () => {
    const answer = await ask({ type: 'stats' });
    if (answer.stats === undefined) throw new Error(`the local X server answered ${answer.type} to stats`);
    return answer.stats;
  };
  return { url, child, ask, stats, stop: () => child.kill('SIGTERM') };
}
