// CPU time of processes, read from /proc (Linux), so a bench can say where a saturated machine's
// cores went: the measured processes, PostgreSQL, the local platform server, the bench itself.
import { readdir, readFile } from 'node:fs/promises';

/** Kernel clock ticks per second for /proc/PID/stat times (`getconf CLK_TCK`; 100 on Linux everywhere in practice). */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of one process, or null when it is gone (or this is not Linux). */
async function cpuOf(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** CPU seconds of every running process whose command is `name`, by pid (e.g. every `postgres` backend). */
async function cpuByCommand(name: string): Promise<Map<number, number>> {
  const seconds = new Map<number, number>();
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return seconds;
  }
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
        if (comm.trim() !== name) return;
        const cpu = await cpuOf(Number(entry));
        if (cpu !== null) seconds.set(Number(entry), cpu);
      }),
  );
  return seconds;
}

export type CpuGroups = Record<string, number[] | { command: string }>;

export interface CpuSnapshot {
  groups: Record<string, Map<number, number>>;
  machine: number | null;
  at: number;
}

/** CPU seconds per group at one moment (a group is a list of pids, or every process running a command), and the machine's. */
export async function cpuSnapshot(groups: CpuGroups): Promise<CpuSnapshot> {
  const snapshot: Record<string, Map<number, number>> = {};
  for (const [group, members] of Object.entries(groups)) {
    if (Array.isArray(members)) {
      const seconds = new Map<number, number>();
      for (const pid of members) {
        const own = process.cpuUsage();
        const cpu = pid === process.pid ? (own.user + own.system) / 1e6 : await cpuOf(pid);
        if (cpu !== null) seconds.set(pid, cpu);
      }
      snapshot[group] = seconds;
    } else {
      snapshot[group] = await cpuByCommand(members.command);
    }
  }
  return { groups: snapshot, machine: await machineBusySeconds(), at: performance.now() };
}

export interface CpuUse {
  /** CPU seconds per group. */
  groups: Record<string, number>;
  /** Cores the groups kept busy on average, and the whole machine (anything else running shows here). */
  cores: number;
  machineCores: number | null;
  seconds: number;
}

/**
 * CPU used between two snapshots. A process that started in between counts from zero; one that
 * ended in between is lost (PostgreSQL backends live as long as the pools' connections, which
 * stay open while they are busy).
 */
export function cpuUsed(before: CpuSnapshot, after: CpuSnapshot): CpuUse {
  const groups: Record<string, number> = {};
  for (const [group, seconds] of Object.entries(after.groups)) {
    let sum = 0;
    for (const [pid, cpu] of seconds) sum += cpu - (before.groups[group]?.get(pid) ?? 0);
    groups[group] = sum;
  }
  const seconds = (after.at - before.at) / 1000;
  const cores = Object.values(groups).reduce((a, b) => a + b, 0) / seconds;
  const machineCores =
    before.machine === null || after.machine === null ? null : (after.machine - before.machine) / seconds;
  return { groups, cores, machineCores, seconds };
}

/** Adds up uses of several spans (e.g. the measured runs of one side). */
export function addCpuUse(uses: readonly CpuUse[]): CpuUse {
  const groups: Record<string, number> = {};
  for (const use of uses) for (const [group, s] of Object.entries(use.groups)) groups[group] = (groups[group] ?? 0) + s;
  const seconds = uses.reduce((n, u) => n + u.seconds, 0);
  const busy = uses.reduce((n, u) => n + u.cores * u.seconds, 0);
  const machine = uses.every((u) => u.machineCores !== null)
    ? uses.reduce((n, u) => n + (u.machineCores ?? 0) * u.seconds, 0) / seconds
    : null;
  return { groups, cores: busy / seconds, machineCores: machine, seconds };
}

/** Cores taken by processes outside the groups (and the kernel) beyond which a measurement is called disturbed. */
const OTHERS_WARNING = 0.25;

/** `CPU s: workers 13.6, PostgreSQL 19.3; 1.41 of 2 cores busy (whole machine 1.52)`, with a warning when others took much. */
export function describeCpu(use: CpuUse, cores: number): string {
  const groups = Object.entries(use.groups)
    .map(([group, s]) => `${group} ${s.toFixed(1)}`)
    .join(', ');
  const others = use.machineCores === null ? 0 : use.machineCores - use.cores;
  const machine =
    use.machineCores === null
      ? ''
      : ` (whole machine ${use.machineCores.toFixed(2)}${others > OTHERS_WARNING ? `: other processes took ${others.toFixed(2)}, figures disturbed` : ''})`;
  return `CPU s: ${groups}; ${use.cores.toFixed(2)} of ${cores} cores busy${machine}`;
}

/** CPU seconds the whole machine has been busy (every process, the kernel too), from /proc/stat; null elsewhere. */
export async function machineBusySeconds(): Promise<number | null> {
  try {
    const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
    // cpu  user nice system idle iowait irq softirq steal …
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
