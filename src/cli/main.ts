// The `perch` command: one sub-command per way of running or administering the service.
import { Command } from 'commander';
import { runServer, VERSION } from '../main.ts';
import { openStore } from '../storage/store.ts';
import { loadConfig } from './load-config.ts';

const program = new Command('perch').description('Track X and Bluesky accounts and serve their details over HTTP.').version(VERSION);

program
  .command('serve', { isDefault: true })
  .description('run the HTTP API and the tracker in one process (the default)')
  .action(async () => runServer(loadConfig(), 'serve'));

program
  .command('api')
  .description('run the HTTP API only (scale-out: run trackers as `perch worker`)')
  .action(async () => runServer(loadConfig({ tracker: false }), 'api'));

program
  .command('migrate')
  .description('bring the database schema up to date, then exit')
  .action(async () => {
    const config = loadConfig();
    const store = await openStore(config.databaseUrl);
    await store.close();
    process.stdout.write('schema is up to date\n');
  });

await program.parseAsync(process.argv);
