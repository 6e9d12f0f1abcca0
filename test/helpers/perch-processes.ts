// Real perch processes (server-process.ts) on a fresh store that the test also opens itself: when
// the test ends every process is SIGKILLed and awaited first, then the test's store is closed, the
// local servers it was given are closed and the location is dropped, so nothing outlives its data.
import type { TestContext } from 'node:test';
import { openStore, type Store } from '../../src/storage/store.ts';
import { startApi, startServer, startWorker, type ServerProcess } from './server-process.ts';
import { freshStoreUrl } from './store-url.ts';

const START = { serve: startServer, api: startApi, worker: startWorker } as const;

export interface PerchProcesses {
  /** What every process of the test is started with: the store and the key-hash secret. */
  env: { DATABASE_URL: string; KEY_HASH_SECRET: string };
  store: Store;
  /** Starts `perch serve`, `perch api` or `perch worker`, killed when the test ends. */
  start(command: keyof typeof START, env: Record<string, string>): Promise<ServerProcess>;
}

export async function perchProcesses(
  t: TestContext,
  servers: readonly { close(): Promise<void> }[],
): Promise<PerchProcesses> {
  const location = await freshStoreUrl();
  const store = await openStore(location.url);
  const processes: ServerProcess[] = [];
  t.after(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exited));
    await store.close();
    await Promise.all(servers.map((server) => server.close()));
    await location.drop();
  });
  return {
    env: { DATABASE_URL: location.url, KEY_HASH_SECRET: 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz' },
    store,
    async start(command, env) {
      const started = await START[command](env);
      processes.push(started);
      return started;
    },
  };
}
