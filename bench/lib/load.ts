// Closed-loop HTTP load with autocannon: N connections, each sending its next GET as soon as the last answers.
import autocannon, { type Result } from 'autocannon';

export interface LoadOptions {
  url: string;
  /** Paths the requests rotate over, in order, shared by all connections. */
  paths: readonly string[];
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Responses received, and over how many seconds. */
  completed: number;
  seconds: number;
  /** Every response's latency in ms, sub-millisecond (autocannon's own histogram keeps whole ms). */
  latenciesMs: Float64Array;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let next = 0;
  let latencies = new Float64Array(1 << 20);
  let count = 0;
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationS,
        headers: options.headers ?? {},
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => {
              request.path = options.paths[next] ?? '/';
              next = next + 1 === options.paths.length ? 0 : next + 1;
              return request;
            },
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count] = responseTime;
      count += 1;
    });
  });
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, { count: n }]) => [code, Number(n)]),
  );
  return {
    requestsPerSecond: result.requests.total / result.duration,
    completed: result.requests.total,
    seconds: result.duration,
    latenciesMs: latencies.subarray(0, count),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
  };
}

/**
 * The same load spread over several servers side by side: the connections are shared out, each
 * server's requests start at another point of `paths`; req/s add up.
 */
export async function runLoadSpread(urls: readonly string[], options: Omit<LoadOptions, 'url'>): Promise<LoadResult> {
  const runs = await Promise.all(
    urls.map((url, k) => {
      const from = Math.floor((k * options.paths.length) / urls.length);
      const paths = [...options.paths.slice(from), ...options.paths.slice(0, from)];
      const connections =
        Math.floor(options.connections / urls.length) + (k < options.connections % urls.length ? 1 : 0);
      return runLoad({ ...options, url, paths, connections });
    }),
  );
  return runs.length === 1 ? (runs[0] as LoadResult) : sumParallel(runs);
}

/** Results of runs one after another as one: requests over total time, every latency. */
export function mergeRuns(runs: readonly LoadResult[]): LoadResult {
  const latenciesMs = new Float64Array(runs.reduce((n, r) => n + r.latenciesMs.length, 0));
  let offset = 0;
  for (const run of runs) {
    latenciesMs.set(run.latenciesMs, offset);
    offset += run.latenciesMs.length;
  }
  const sum = (pick: (r: LoadResult) => number) => runs.reduce((n, r) => n + pick(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const run of runs)
    for (const [code, n] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const completed = sum((r) => r.completed);
  const seconds = sum((r) => r.seconds);
  return {
    requestsPerSecond: completed / seconds,
    completed,
    seconds,
    latenciesMs,
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
  };
}

/** Results of runs side by side (same duration, different servers) as one: their req/s add up. */
export function sumParallel(runs: readonly LoadResult[]): LoadResult {
  const merged = mergeRuns(runs);
  const seconds = Math.max(...runs.map((r) => r.seconds));
  return { ...merged, seconds, requestsPerSecond: runs.reduce((n, r) => n + r.requestsPerSecond, 0) };
}
