// Progress bars on stderr for long CLI operations; nothing at all when stderr is not a terminal.
import cliProgress from 'cli-progress';
import { formatBytes } from './output.ts';

export interface Progress {
  update(value: number): void;
  stop(): void;
}

const NONE: Progress = { update: () => {}, stop: () => {} };

/** A bar for `total` bytes or rows; stop() leaves it on screen at its final value. */
export function startProgress(label: string, total: number, unit: 'bytes' | 'rows'): Progress {
  if (process.stderr.isTTY !== true || total <= 0) return NONE;
  const show = unit === 'bytes' ? formatBytes : (n: number) => `${n.toLocaleString('en-US')} rows`;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label.padEnd(8)} {bar} {percentage}% | {done} of {size} | ETA {eta_formatted}`,
      stream: process.stderr,
      barsize: 30,
      etaBuffer: 50,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { done: show(0), size: show(total) });
  let stopped = false;
  return {
    update(value) {
      if (!stopped) bar.update(Math.min(value, total), { done: show(Math.min(value, total)) });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
