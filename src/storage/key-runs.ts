// Sorting a large import's keys in runs as they arrive, then merging them into the rows' positions
// in key order (key-order.worker.ts and the import's write thread use it). Each key is a row's
// "platform key" (a space sorts below every character of a key) and gets its position after a tab,
// which sorts below every character a key may hold: keys are distinct, so the default string sort
// (far faster than one with a comparator) orders them, and the position is read back after.

/** The string a row is sorted by: its (platform, key) pair; keys never hold a line break or a tab. */
export const sortKey = (row: { platform: string; key: string }): string => `${row.platform} ${row.key}`;

function merge(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = (a[i] as string) < (b[j] as string) ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

export class KeyRuns {
  private runs: string[][] = [];
  private next = 0;

  /** Adds the keys of the next rows (in row order), sorted into a run of their own; `keys` is reused. */
  add(keys: string[]): void {
    for (let i = 0; i < keys.length; i += 1) keys[i] += `\t${this.next + i}`;
    this.next += keys.length;
    this.runs.push(keys.sort());
  }

  /** The positions of all rows added, in key order. */
  positions(): Uint32Array<ArrayBuffer> {
    let runs = this.runs;
    while (runs.length > 1) {
      const merged: string[][] = [];
      for (let i = 0; i < runs.length; i += 2) {
        const [a, b] = [runs[i] as string[], runs[i + 1]];
        merged.push(b === undefined ? a : merge(a, b));
      }
      runs = merged;
    }
    this.runs = runs;
    const keys = runs[0] ?? [];
    const order = new Uint32Array(keys.length);
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i] as string;
      order[i] = Number(key.slice(key.lastIndexOf('\t') + 1));
    }
    return order;
  }
}
