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
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count: n }]) => [code, Number(n)]));
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
