// The dashboard's static files (ours and uPlot's, from node_modules), read once at start and
// served under names that carry a hash of their content: a page always names the current file,
// so browsers may keep every file for a year without asking again (routes.ts sets the header).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const SOURCES = {
  'app.css': fileURLToPath(new URL('./assets/app.css', import.meta.url)),
  'app.js': fileURLToPath(new URL('./assets/app.js', import.meta.url)),
  'charts.js': fileURLToPath(new URL('./assets/charts.js', import.meta.url)),
  'import.js': fileURLToPath(new URL('./assets/import.js', import.meta.url)),
  'events.js': fileURLToPath(new URL('./assets/events.js', import.meta.url)),
  'uplot.js': createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'),
  'uplot.css': createRequire(import.meta.url).resolve('uplot/dist/uPlot.min.css'),
} as const;

export type AssetName = keyof typeof SOURCES;

interface Asset {
  path: string;
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' };

function load(): Map<AssetName, Asset> {
  const assets = new Map<AssetName, Asset>();
  for (const [name, file] of Object.entries(SOURCES) as [AssetName, string][]) {
    const body = readFileSync(file);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const [base, ext] = name.split('.') as [string, string];
    assets.set(name, {
      path: `/ui/assets/${base}.${hash}.${ext}`,
      body,
      type: TYPES[ext] ?? 'application/octet-stream',
    });
  }
  return assets;
}

const ASSETS = load();

/** The fingerprinted URL of an asset. */
export function assetUrl(name: AssetName): string {
  return ASSETS.get(name)?.path ?? '';
}

export function registerAssets(app: FastifyInstance): void {
  const byPath = new Map([...ASSETS.values()].map((asset) => [asset.path, asset]));
  app.get(
    '/ui/assets/:file',
    { config: { access: 'public', ui: 'public', rateLimit: false } },
    async (request, reply) => {
      const asset = byPath.get(request.url.split('?')[0] ?? '');
      if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('No such file.');
      return reply.type(asset.type).send(asset.body);
    },
  );
}
