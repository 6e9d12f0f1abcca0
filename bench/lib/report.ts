// Printing bench figures: one aligned line per figure, with its target and whether it is met.

/** Value at quantile q (0..1) of an unsorted sample, nearest-rank; NaN for an empty sample. */
export function percentile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export const fmt = {
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`,
  s: (ms: number) => `${(ms / 1000).toFixed(2)} s`,
  ratio: (n: number) => `${n.toFixed(2)}×`,
  mib: (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MiB`,
};

export function heading(text: string): void {
  process.stdout.write(`\n${text}\n`);
}

/** A measured figure without a target (a baseline or context). */
export function figure(label: string, value: string, note = ''): void {
  process.stdout.write(`  ${label.padEnd(44)} ${value.padStart(14)}${note === '' ? '' : `   ${note}`}\n`);
}

export interface Verdict {
  label: string;
  met: boolean;
}

/** A figure with its target; returns the verdict so the bench can print a summary. */
export function target(label: string, value: string, goal: string, met: boolean): Verdict {
  figure(label, value, `target ${goal.padEnd(12)} ${met ? 'met' : 'MISSED'}`);
  return { label, met };
}

export function summary(verdicts: readonly Verdict[]): void {
  const missed = verdicts.filter((v) => !v.met);
  process.stdout.write(
    `\n  ${verdicts.length - missed.length}/${verdicts.length} targets met${missed.length > 0 ? `; missed: ${missed.map((v) => v.label).join(', ')}` : ''}\n`,
  );
}
