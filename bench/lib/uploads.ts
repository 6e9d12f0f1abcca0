// The HTTP side of the import bench: uploads to POST /api/admin/insert, and GET /api/health sent
// every PROBE_EVERY_MS meanwhile to see whether the server keeps answering.
import { request, Agent } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ADMIN_KEY, type Server } from './processes.ts';

const PROBE_EVERY_MS = 20;

export interface Probe {
  sentAt: number;
  waitMs: number;
  status: number;
}

/** GET /api/health every PROBE_EVERY_MS on its own keep-alive sockets until stopped; each probe's wait is recorded. */
export function startProbes(server: Server): { stop(): Promise<Probe[]> } {
  const agent = new Agent({ keepAlive: true });
  const { hostname, port } = new URL(server.url);
  const probes: Probe[] = [];
  const pending = new Set<Promise<void>>();
  const send = () => {
    const sentAt = performance.now();
    const done = new Promise<void>((resolve) => {
      const probe = request({ host: hostname, port, path: '/api/health', agent }, (response) => {
        response.resume();
        response.on('end', () => {
          probes.push({ sentAt, waitMs: performance.now() - sentAt, status: response.statusCode ?? 0 });
          resolve();
        });
      });
      probe.on('error', () => {
        probes.push({ sentAt, waitMs: performance.now() - sentAt, status: 0 });
        resolve();
      });
      probe.end();
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  const timer = setInterval(send, PROBE_EVERY_MS);
  send();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      agent.destroy();
      return probes.sort((a, b) => a.sentAt - b.sentAt);
    },
  };
}

export interface Answer {
  status: number;
  body: { inserted?: number; code?: string } & Record<string, unknown>;
}

/** POST /api/admin/insert with the body as the content type says; resolves with the status and parsed answer. */
export function postImport(server: Server, contentType: string, payload: Buffer): Promise<Answer> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const upload = request(
      {
        host: hostname,
        port,
        path: '/api/admin/insert',
        method: 'POST',
        headers: { 'content-type': contentType, 'content-length': payload.length, 'x-api-key': ADMIN_KEY },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          try {
            resolve({
              status: response.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer['body'],
            });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    upload.on('error', reject);
    upload.end(payload);
  });
}

/** When the slow probes were sent, in seconds after the upload started, e.g. "at 2.1 s (140 ms), 8.9 s (420 ms)". */
export function slowSpells(probes: readonly Probe[], startedAt: number, limitMs: number): string {
  const slow = probes.filter((p) => p.waitMs > limitMs);
  const shown = slow
    .slice(0, 8)
    .map((p) => `${((p.sentAt - startedAt) / 1000).toFixed(1)} s (${Math.round(p.waitMs)} ms)`);
  return slow.length === 0 ? '' : `sent at ${shown.join(', ')}${slow.length > shown.length ? ', …' : ''}`;
}

export interface ProbedUpload {
  answer: Answer;
  ms: number;
  /** The probes sent while the upload was in flight. */
  probes: Probe[];
  /** The bench's own event-loop delay, max ms: small means slow probes were the server's. */
  ownDelayMaxMs: number;
  startedAt: number;
}

/** One upload while the server is probed; a few probes go first, as a reference. */
export async function uploadWhileProbing(server: Server, contentType: string, payload: Buffer): Promise<ProbedUpload> {
  const probes = startProbes(server);
  const ownDelay = monitorEventLoopDelay({ resolution: 5 });
  ownDelay.enable();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const startedAt = performance.now();
  const answer = await postImport(server, contentType, payload);
  const finishedAt = performance.now();
  const all = await probes.stop();
  ownDelay.disable();
  return {
    answer,
    ms: finishedAt - startedAt,
    probes: all.filter((p) => p.sentAt >= startedAt && p.sentAt <= finishedAt),
    ownDelayMaxMs: ownDelay.max / 1e6,
    startedAt,
  };
}
