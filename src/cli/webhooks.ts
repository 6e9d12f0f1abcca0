// `perch webhooks create|list|test|deliveries`: manage webhook endpoints directly in the configured
// store (no server needed); a running `perch serve` or `perch worker` delivers.
import type { Command } from 'commander';
import { createWebhook, deliveriesOf, listWebhookViews, sendTestEvent } from '../services/webhooks.ts';
import { withServices } from './context.ts';
import { clean, printJson, shortTime, table } from './output.ts';
import { commaList } from './options.ts';

async function create(
  url: string,
  options: { events: string[]; tags?: string[]; description?: string; json?: boolean },
): Promise<void> {
  const { webhook, secret } = await withServices(({ services }) =>
    createWebhook(
      services.webhooks,
      { url, events: options.events, tags: options.tags ?? [], description: options.description ?? null },
      'cli',
    ),
  );
  if (options.json) return printJson({ ...webhook, secret });
  process.stdout.write(
    `Created webhook ${webhook.id} for ${clean(webhook.url)} (${webhook.events.join(', ')}${webhook.tags.length > 0 ? `; tags ${webhook.tags.join(', ')}` : ''}).\n` +
      `Its signing secret is shown only this once; keep it safe:\n\n  ${secret}\n\n` +
      `Send it a test event with: perch webhooks test ${webhook.id}\n`,
  );
}

async function listAll(options: { json?: boolean }): Promise<void> {
  const hooks = await withServices(({ services }) => listWebhookViews(services.webhooks));
  if (options.json) return printJson(hooks);
  if (hooks.length === 0)
    return void process.stdout.write('No webhooks. Create one with: perch webhooks create https://… --events "*"\n');
  const rows = hooks.map((h) => [
    h.id,
    clean(h.url),
    h.events.join(','),
    h.tags.join(',') || '-',
    h.enabled ? 'yes' : `no: ${clean(h.disabledReason ?? '')}`,
    shortTime(h.createdAt),
  ]);
  process.stdout.write(table(['ID', 'URL', 'EVENTS', 'TAGS', 'ENABLED', 'CREATED'], rows));
}

async function test(id: string, options: { json?: boolean }): Promise<void> {
  const { eventId } = await withServices(({ services }) => sendTestEvent(services.webhooks, id));
  if (options.json) return printJson({ success: true, eventId });
  process.stdout.write(
    `Queued webhook.test ${eventId} for ${id}. A running perch serve or perch worker sends it within a second; see: perch webhooks deliveries ${id}\n`,
  );
}

async function deliveries(id: string, options: { limit: number; json?: boolean }): Promise<void> {
  const attempts = await withServices(({ services }) => deliveriesOf(services.webhooks, id, { limit: options.limit }));
  if (options.json) return printJson(attempts);
  if (attempts.length === 0) return void process.stdout.write(`No delivery attempts for ${id} yet.\n`);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const rows = attempts.map((a) => [
    shortTime(iso(a.at)),
    a.eventId,
    a.eventType,
    String(a.attempt),
    a.statusCode === null ? '-' : String(a.statusCode),
    `${a.durationMs} ms`,
    clean(a.error ?? '-'),
    shortTime(iso(a.nextRetryAt)),
  ]);
  process.stdout.write(table(['AT', 'EVENT', 'TYPE', 'ATTEMPT', 'STATUS', 'TOOK', 'ERROR', 'NEXT RETRY'], rows));
}

export function registerWebhookCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('create, list and test webhook endpoints, and read their deliveries, directly in the store');
  webhooks
    .command('create')
    .description('register an endpoint and print its signing secret (shown only this once)')
    .argument('<url>', 'http(s) URL that receives the events')
    .option('--events <types>', 'event types separated by commas, or * for all', commaList, ['*'])
    .option('--tags <tags>', 'only events about accounts with one of these tags (separated by commas)', commaList)
    .option('--description <text>', 'a label to recognise it by')
    .option('--json', 'print the result as JSON (the same fields as POST /api/admin/webhooks)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ perch webhooks create https://hooks.example.com/perch --events account.status_changed,account.renamed\n  $ perch webhooks create https://hooks.example.com/vip --events "*" --tags vip',
    )
    .action(create);
  webhooks
    .command('list')
    .description('list endpoints (never their secrets)')
    .option('--json', 'print them as a JSON array')
    .action(listAll);
  webhooks
    .command('test')
    .description('queue a webhook.test event to one endpoint')
    .argument('<id>', 'the webhook id (wh_…)')
    .option('--json', 'print the result as JSON')
    .action(test);
  webhooks
    .command('deliveries')
    .description('the delivery attempts of one endpoint, newest first')
    .argument('<id>', 'the webhook id (wh_…)')
    .option('--limit <n>', 'how many attempts', (v) => Math.max(1, Math.min(500, Number.parseInt(v, 10) || 50)), 50)
    .option('--json', 'print them as a JSON array')
    .action(deliveries);
}
