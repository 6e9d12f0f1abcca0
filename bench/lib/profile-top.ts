// Summarises a V8 .cpuprofile (from BENCH_CPU_PROF): the functions and the packages with the most
// self time, as shares of the busy (non-idle) time.
// Run: node --import tsx bench/lib/profile-top.ts FILE.cpuprofile [top=25] [from-s] [to-s]
// (from/to: only the samples between those seconds after the profile started, e.g. the load
// without the start-up; the busy time per second is printed first to find them).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, fromArg, toArg] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: profile-top.ts FILE.cpuprofile [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

const fromUs = Number(fromArg ?? 0) * 1e6;
const toUs = toArg === undefined ? Number.POSITIVE_INFINITY : Number(toArg) * 1e6;
const isIdle = (id: number) => {
  const name = byId.get(id)?.callFrame.functionName;
  return name === '(idle)' || name === '(program)';
};

// Self time per node: each sample's delta goes to the node sampled; busy time per second beside.
const selfUs = new Map<number, number>();
const busyPerSecond: number[] = [];
let at = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  const second = Math.floor(at / 1e6);
  if (!isIdle(id)) busyPerSecond[second] = (busyPerSecond[second] ?? 0) + delta;
  if (at < fromUs || at > toUs) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});
process.stdout.write(
  `busy share per second: ${Array.from(busyPerSecond, (us, s) => `${s}:${Math.round((us ?? 0) / 1e4)}`).join(' ')}\n`,
);

/** `fastify`, `pino`, `node:internal`, `perch src/http`, … : where a function's code lives. */
function placeOf(url: string): string {
  if (url === '') return '(native / VM)';
  if (url.startsWith('node:')) return 'node: built-ins';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const own = /\/(src|bench)\/([^/]+)\//.exec(url);
  if (own) return `perch ${own[1]}/${own[2]}`;
  return url.replace(/^file:\/\//, '');
}

const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
let busy = 0;
let total = 0;
for (const [id, us] of selfUs) {
  const frame = (byId.get(id) as ProfileNode).callFrame;
  total += us;
  if (isIdle(id)) continue;
  busy += us;
  const where =
    frame.url === '' ? '' : ` ${frame.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${frame.lineNumber + 1}`;
  const name = `${frame.functionName || '(anonymous)'}${where}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  const place = placeOf(frame.url);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
}

const share = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
const list = (title: string, entries: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`  ${share(us)}  ${name}\n`);
};
process.stdout.write(
  `${file}\n  ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy (shares below are of the busy time)\n`,
);
list('self time by function', byFunction);
list('self time by package / folder', byPlace);
