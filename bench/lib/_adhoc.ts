import { mkdtemp } from 'node:fs/promises';
import { runLoad } from './load.ts';
import { startPerch } from './processes.ts';
const dir = await mkdtemp('/tmp/perch-bench-try/adhoc-');
const s = await startPerch(`${dir}/p.db`);
for (const path of ['/api/health/live', '/api/health/live', '/api/health']) {
  const r = await runLoad({ url: s.url, paths: [path], connections: 50, durationS: 4 });
  console.log(path, Math.round(r.requestsPerSecond));
}
await s.stop();
