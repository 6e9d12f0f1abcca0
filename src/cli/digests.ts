// `perch digests list|add|preview|send-now|remove`: manage digests directly in the configured store
// (no server needed), through the same use cases as the API; a running `perch serve` or `perch
// worker` sends them at their time and delivers what is queued.
import type { Command } from 'commander';
import { describeScope } from '../domain/alert-words.ts';
import { sendDigestNow } from '../services/digest-send-now.ts';
import { createDigest, previewDigest, readDigests, removeDigest } from '../services/digests.ts';
import { withServices } from './context.ts';
import { clean, printJson, shortTime, table } from './output.ts';
import { addScopeOptions, commaList, scopeOf, type ScopeOptions } from './options.ts';

/** Text from the store, line by line made safe for the terminal. */
const safeLines = (text: string): string =>
  text
    .split('\n')
    .map((line) => clean(line))
    .join('\n');

interface AddOptions extends ScopeOptions {
  name: string;
  timeZone: string;
  recipients: string[];
  schedule?: string;
  at?: string;
  json?: boolean;
}

async function add(options: AddOptions): Promise<void> {
  const input = {
    name: options.name,
    timeZone: options.timeZone,
    recipients: options.recipients,
    scope: scopeOf(options),
    ...(options.schedule ? { schedule: options.schedule } : {}),
    ...(options.at ? { at: options.at } : {}),
  };
  const digest = await withServices(({ services }) => createDigest(services.digests, input, 'cli'));
  if (options.json) return printJson(digest);
  const next = digest.nextSendAt === null ? 'not sent without SMTP_URL (preview only)' : `next ${digest.nextSendAt}`;
  process.stdout.write(
    `Created digest ${digest.id} "${clean(digest.name)}": ${digest.schedule} at ${digest.at} ${digest.timeZone}, ${describeScope(digest.scope)}, to ${digest.recipients.join(', ')}; ${next}.\n` +
      `See it with: perch digests preview ${digest.id}\n`,
  );
}

async function listAll(options: { json?: boolean }): Promise<void> {
  const digests = await withServices(({ services }) => readDigests(services.digests));
  if (options.json) return printJson(digests);
  if (digests.length === 0)
    return void process.stdout.write(
      'No digests. Add one with: perch digests add --name "Morning" --time-zone Europe/Paris --recipients desk@example.com\n',
    );
  const rows = digests.map((d) => [
    d.id,
    clean(d.name),
    `${d.schedule} ${d.at}`,
    d.timeZone,
    describeScope(d.scope),
    d.recipients.join(','),
    shortTime(d.nextSendAt),
  ]);
  process.stdout.write(table(['ID', 'NAME', 'WHEN', 'TIME ZONE', 'SCOPE', 'RECIPIENTS', 'NEXT (UTC)'], rows));
}

async function preview(id: string, options: { html?: boolean; json?: boolean }): Promise<void> {
  const rendered = await withServices(({ services }) => previewDigest(services.digests, id));
  if (options.json) return printJson(rendered);
  if (options.html) return void process.stdout.write(`${safeLines(rendered.html)}\n`);
  process.stdout.write(`Subject: ${clean(rendered.subject)}\n\n${safeLines(rendered.text)}\n`);
}

async function sendNow(id: string, options: { json?: boolean }): Promise<void> {
  const sent = await withServices(({ services }) => sendDigestNow(services.digests, id, 'cli'));
  if (options.json) return printJson(sent);
  process.stdout.write(
    `Queued "${clean(sent.subject)}" to ${sent.recipients.join(', ')} (mail ${sent.mailId ?? '-'}); a running perch serve or perch worker sends it.\n`,
  );
}

async function remove(id: string, options: { json?: boolean }): Promise<void> {
  await withServices(({ services }) => removeDigest(services.digests, id, 'cli'));
  if (options.json) return printJson({ success: true, id });
  process.stdout.write(`Deleted digest ${id}.\n`);
}

export function registerDigestCommands(program: Command): void {
  const digests = program
    .command('digests')
    .description('list, add, preview, send and remove digests, directly in the store');
  digests
    .command('list')
    .description('list digests')
    .option('--json', 'print them as a JSON array (the fields of GET /api/admin/digests)')
    .action(listAll);
  const adding = digests
    .command('add')
    .description('add a digest: a name, a time zone, recipients, and optionally a schedule, time and scope')
    .requiredOption('--name <text>', 'what the digest is called (its subject)')
    .requiredOption('--time-zone <zone>', 'the IANA time zone of --at, such as Europe/Paris')
    .requiredOption('--recipients <addresses>', 'e-mail addresses it goes to (separated by commas)', commaList)
    .option('--schedule <schedule>', 'daily or weekly (Mondays); default daily')
    .option('--at <hh:mm>', 'the local time it goes out; default 08:00');
  addScopeOptions(adding)
    .option('--json', 'print the digest as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ perch digests add --name "Morning" --time-zone Europe/Paris --recipients desk@example.com\n  $ perch digests add --name "Weekly news" --schedule weekly --at 09:30 --time-zone America/New_York --tags news --recipients a@example.com,b@example.com',
    )
    .action(add);
  digests
    .command('preview')
    .description('print the next digest as it stands now (plain text; --html for the mail body)')
    .argument('<id>', 'the digest id (dgst_…)')
    .option('--html', 'print the HTML body instead of the text')
    .option('--json', 'print subject, html, text and period as JSON')
    .action(preview);
  digests
    .command('send-now')
    .description(
      'queue what the preview shows to the recipients now (needs SMTP_URL); the scheduled send still goes out',
    )
    .argument('<id>', 'the digest id (dgst_…)')
    .option('--json', 'print the result as JSON')
    .action(sendNow);
  digests
    .command('remove')
    .description('delete a digest')
    .argument('<id>', 'the digest id (dgst_…)')
    .option('--json', 'print the result as JSON')
    .action(remove);
}
