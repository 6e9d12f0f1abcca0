// The entry point, `perch`: one sub-command per way of running or administering the service.
// bin/perch.js and the npm scripts run this file; the sub-commands live in cli/, serve.ts and compose.ts.
import { Command } from 'commander';
import { registerImportCommand } from './cli/import.ts';
import { registerKeyCommands } from './cli/keys.ts';
import { loadConfig } from './cli/load-config.ts';
import { registerAlertCommands } from './cli/alerts.ts';
import { registerDigestCommands } from './cli/digests.ts';
import { registerWebhookCommands } from './cli/webhooks.ts';
import { EXIT, reportFailure } from './cli/output.ts';
import { VERSION } from './compose.ts';
import { runServer } from './serve.ts';
import { openStore } from './storage/store.ts';

const program = new Command('perch')
  .description('Track X and Bluesky accounts and serve their details over HTTP.')
  .version(VERSION)
  // Settings below are copied into every sub-command created after them.
  .exitOverride()
  .showHelpAfterError('(add --help for usage)');

program
  .command('serve', { isDefault: true })
  .description('run the HTTP API and the tracker in one process (the default)')
  .action(async () => runServer(loadConfig(), 'serve'));

program
  .command('api')
  .description('run the HTTP API only, without the tracker (for scale-out on PostgreSQL)')
  .action(async () => runServer(loadConfig({ tracker: false }), 'api'));

program
  .command('worker')
  .description(
    'run the tracker and the webhook deliveries only, with health and metrics on WORKER_PORT if set (for scale-out on PostgreSQL)',
  )
  .action(async () => runServer(loadConfig({ tracker: true }), 'worker'));

program
  .command('demo')
  .description('run perch on a temporary store against simulated X and Bluesky servers (no network, no credentials)')
  .action(async () => {
    // The simulation lives beside the tests (it is their local platform servers), not in src/.
    const { runDemo } = await import('../demo/run.ts');
    await runDemo();
  });

program
  .command('migrate')
  .description('bring the database schema up to date, then exit')
  .action(async () => {
    const config = loadConfig();
    // Behind a transaction-mode pooler the migrations, too, run without named statements.
    const store = await openStore(config.databaseUrl, { preparedStatements: config.preparedStatements });
    await store.close();
    process.stdout.write('schema is up to date\n');
  });

registerKeyCommands(program);
registerImportCommand(program);
registerWebhookCommands(program);
registerAlertCommands(program);
registerDigestCommands(program);

// With a default command, commander hands an unknown word to `serve` ("too many arguments for
// 'serve'"); name the real mistake instead.
const first = process.argv[2];
const known = (name: string) =>
  name === 'help' || program.commands.some((command) => command.name() === name || command.aliases().includes(name));
if (first !== undefined && !first.startsWith('-') && !known(first)) {
  process.stderr.write(
    `error: unknown command '${first.replace(/[^\x20-\x7e]/g, '?')}'. Commands: ${program.commands.map((c) => c.name()).join(', ')}.\n`,
  );
  process.exitCode = EXIT.usage;
} else {
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    process.exitCode = reportFailure(error, { json: process.argv.includes('--json') });
  }
}
