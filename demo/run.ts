// `npm run demo` / `perch demo`: perch on a temporary SQLite file, tracking a few hundred
// simulated accounts on local X and Bluesky servers, so statuses, history, posts and analysis
// appear within a minute with no credentials and no network. Ctrl-C stops it and deletes the data.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig } from '../src/config.ts';
import { runServer } from '../src/serve.ts';
import { systemClock } from '../src/clock.ts';
import { commitImport, planImport } from '../src/services/import-accounts.ts';
import { openStore } from '../src/storage/store.ts';
import { countByStatus } from '../src/storage/tracking-repo.ts';
import { createDigest } from '../src/services/digests.ts';
import { DEMO_X_TOKEN, evolve, startSimulation } from './simulation.ts';
import { startMailbox } from './mailbox.ts';

const EVOLVE_EVERY_MS = 5_000;
const REPORT_EVERY_MS = 10_000;

export async function runDemo(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'perch-demo-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const sim = await startSimulation();
  const mailbox = await startMailbox(dir);
  const adminKey = `perch-demo-admin-${randomBytes(16).toString('hex')}`;
  const config = createConfig({
    PORT: env.PORT ?? '3000',
    HOST: env.HOST ?? '127.0.0.1',
    LOG_LEVEL: env.LOG_LEVEL ?? 'warn',
    DATABASE_URL: `file:${join(dir, 'perch.db')}`,
    ADMIN_API_KEY: adminKey,
    X_BEARER_TOKEN: DEMO_X_TOKEN,
    X_API_BASE_URL: sim.x.url,
    BLUESKY_API_BASE_URL: sim.bsky.url,
    // Bluesky posts, renames and takedowns arrive live from the local Jetstream.
    BLUESKY_JETSTREAM_URL: sim.jetstream.url,
    // Fast on purpose: accounts are re-checked every 20 s and history keeps a point per minute.
    TRACK_INTERVAL: '20s',
    HISTORY_BUCKET: '1m',
    TRACK_LEASE: '1m',
    // The simulated X bills nothing; a real budget would run out in minutes at this pace.
    X_DAILY_READ_BUDGET: '100000000',
    // The demo's webhooks go to receivers on this machine.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // Mail goes to the demo's own mailbox (an SMTP server on this machine).
    SMTP_URL: mailbox.url,
    MAIL_FROM: 'perch demo <perch@localhost>',
  });

  const store = await openStore(config.databaseUrl);
  const report = await commitImport(store, await planImport(sim.csv, config), {
    actor: 'demo',
    source: 'demo',
    clock: systemClock,
  });
  setInterval(() => evolve(sim), EVOLVE_EVERY_MS).unref();
  // A daily digest due about a minute from now (UTC), so the first one arrives while you watch.
  const soon = new Date(Date.now() + 60_000);
  const at = `${String(soon.getUTCHours()).padStart(2, '0')}:${String(soon.getUTCMinutes()).padStart(2, '0')}`;
  await createDigest(
    { store, clock: systemClock, mailOn: true },
    { name: 'Demo digest', schedule: 'daily', at, timeZone: 'Etc/UTC', recipients: ['you@example.com'] },
    'demo',
  );

  await runServer(config, 'serve');
  const base = `http://${config.host}:${config.port}`;
  process.stdout.write(
    [
      '',
      `  Dashboard: ${base}/   (sign in with the admin key below)`,
      `  Admin key (demo only): ${adminKey}`,
      '',
      `  perch demo: ${report.inserted} simulated accounts (X and Bluesky) on local servers; data in ${dir} (deleted on exit).`,
      '  Bluesky posts arrive live from a local Jetstream: watch account.posted (via "stream") on the Events page.',
      `  API: ${base}/api   docs: ${base}/api/docs   metrics: ${base}/metrics`,
      '',
      '  Try:',
      `    curl -s -H 'x-api-key: ${adminKey}' '${base}/api/?status=active&sort=-followers&limit=5'`,
      `    curl -s -H 'x-api-key: ${adminKey}' '${base}/api/health'`,
      `    curl -s -H 'x-api-key: ${adminKey}' '${base}/api/accounts/x/${sim.csv.split('\n')[1]?.split(',')[0]}/history'`,
      `    curl -s -H 'x-api-key: ${adminKey}' '${base}/api/accounts/x/${sim.csv.split('\n')[1]?.split(',')[0]}/posts'`,
      '',
      '  Webhooks: run a receiver (README, "Events and webhooks"), e.g. on port 4000, then:',
      `    curl -s -X POST -H 'x-api-key: ${adminKey}' -H 'content-type: application/json' '${base}/api/admin/webhooks' \\`,
      `      -d '{"url": "http://127.0.0.1:4000/hook", "events": ["account.status_changed", "account.renamed", "webhook.test"]}'`,
      `    curl -s -X POST -H 'x-api-key: ${adminKey}' '${base}/api/admin/webhooks/wh_…/test'`,
      `    curl -sN -H 'x-api-key: ${adminKey}' '${base}/api/events/stream'      # or watch every event live`,
      '',
      `  Mail: a demo digest goes out at ${at} UTC to a local SMTP server; messages land in ${mailbox.dir}`,
      `    (and in the dashboard: ${base}/ui/digests for the preview, ${base}/ui/mail for the log).`,
      '',
      '  Ctrl-C stops the demo.',
      '',
    ].join('\n'),
  );
  // Progress on the terminal: how many accounts the tracker has reached so far.
  setInterval(() => {
    void countByStatus(store.reader).then(
      (rows) => {
        const byStatus = new Map<string, number>();
        for (const row of rows) byStatus.set(row.status, (byStatus.get(row.status) ?? 0) + row.n);
        process.stdout.write(
          `  ${new Date().toISOString().slice(11, 19)}  ${[...byStatus].map(([status, n]) => `${status} ${n}`).join(' · ')}\n`,
        );
      },
      () => {},
    );
  }, REPORT_EVERY_MS).unref();
}
