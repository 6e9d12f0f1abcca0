// `perch keys create|list|revoke`: manage API keys directly in the configured store (no server needed).
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ROLES, type Role } from '../domain/roles.ts';
import { findKey, issueApiKey, listKeys, revokeKey, type ApiKey } from '../services/api-keys.ts';
import { withServices } from './context.ts';
import { CliError, clean, printJson, quote, shortTime, table } from './output.ts';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/; // eslint-disable-line no-control-regex

/** The same rule as the HTTP API: 1-100 characters, no line breaks or control characters. */
function textArgument(what: string) {
  return (value: string): string => {
    const text = value.trim();
    if (text === '' || text.length > 100) throw new InvalidArgumentError(`The ${what} must be 1 to 100 characters.`);
    if (CONTROL.test(text))
      throw new InvalidArgumentError(`The ${what} must not contain line breaks or control characters.`);
    return text;
  };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** An ISO 8601 date (midnight UTC) or date-time with a zone, in the future; milliseconds since the epoch. */
function parseExpiry(value: string): number {
  const text = value.trim();
  const ms = DATE_ONLY.test(text)
    ? Date.parse(`${text}T00:00:00Z`)
    : DATE_TIME.test(text)
      ? Date.parse(text.replace(' ', 'T'))
      : Number.NaN;
  if (Number.isNaN(ms))
    throw new InvalidArgumentError(
      'Use an ISO 8601 date or date-time with a zone, e.g. 2027-01-31 or 2027-01-31T18:00:00Z.',
    );
  if (ms <= Date.now()) throw new InvalidArgumentError(`${new Date(ms).toISOString()} is in the past.`);
  return ms;
}

interface CreateOptions {
  role: Role;
  username: string;
  name?: string;
  expiresAt?: number;
  json?: boolean;
}

async function createKey(options: CreateOptions): Promise<void> {
  const { body: created } = await withServices(({ services }) =>
    issueApiKey(services.keys, {
      role: options.role,
      username: options.username,
      name: options.name ?? null,
      expiresAt: options.expiresAt ?? null,
      actor: 'cli',
    }),
  );
  const { apiKey, id, role, username, name, start, createdAt, expiresAt } = created;
  if (options.json) return printJson({ success: true, apiKey, id, role, username, name, start, createdAt, expiresAt });
  process.stdout.write(
    `Created ${role === 'admin' ? 'an admin' : 'an app'} key ${id} for ${clean(username)}. It is shown only this once; keep it safe:\n\n` +
      `  ${apiKey}\n\n` +
      `  id        ${id}\n  role      ${role}\n  username  ${clean(username)}\n` +
      (name === null ? '' : `  name      ${clean(name)}\n`) +
      `  expires   ${expiresAt ?? 'never'}\n\nSend it in the x-api-key header.\n`,
  );
}

async function listAll(options: { all?: boolean; json?: boolean }): Promise<void> {
  const { keys, envAdmin } = await withServices(async ({ config, services }) => {
    const found: ApiKey[] = [];
    for (;;) {
      const after = found.at(-1)?.id;
      const page = await listKeys(services.keys, {
        includeRevoked: options.all === true,
        limit: 500,
        ...(after ? { after } : {}),
      });
      found.push(...page);
      if (page.length < 500) return { keys: found, envAdmin: config.adminApiKey !== null };
    }
  });
  if (options.json) return printJson(keys);
  if (keys.length === 0) {
    process.stdout.write(
      options.all ? 'No API keys.\n' : 'No active API keys (revoked ones are hidden; add --all to see them).\n',
    );
  } else {
    const now = new Date().toISOString();
    const rows = keys.map((key) => [
      key.id,
      key.role,
      clean(key.username),
      key.name === null ? '-' : clean(key.name),
      `${key.start}…`,
      shortTime(key.createdAt),
      key.expiresAt !== null && key.expiresAt <= now
        ? `${shortTime(key.expiresAt)} (expired)`
        : shortTime(key.expiresAt),
      shortTime(key.revokedAt),
      shortTime(key.lastUsedAt),
    ]);
    process.stdout.write(
      table(['ID', 'ROLE', 'USERNAME', 'NAME', 'START', 'CREATED', 'EXPIRES', 'REVOKED', 'LAST USED'], rows),
    );
    process.stdout.write(
      `\n${keys.length} key${keys.length === 1 ? '' : 's'}; times are UTC${options.all ? '' : '; revoked keys are hidden (--all shows them)'}.\n`,
    );
  }
  if (envAdmin)
    process.stdout.write('ADMIN_API_KEY from the environment is also an admin key (not stored, not listed).\n');
}

async function revoke(id: string): Promise<void> {
  const message = await withServices(async ({ config, services }) => {
    const key = await findKey(services.keys, id);
    if (key === null)
      throw new CliError(`perch: no API key has the id ${quote(id)} (perch keys list --all shows them all).`);
    if (key.revokedAt !== null) return `Key ${key.id} was already revoked at ${key.revokedAt}; nothing changed.\n`;
    await revokeKey(services.keys, id, 'cli');
    const bound = Math.ceil(config.keyCacheTtlMs / 1000);
    return `Revoked key ${key.id} (${key.role}, ${clean(key.username)}). Running servers refuse it within ${bound} s.\n`;
  });
  process.stdout.write(message);
}

export function registerKeyCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description('create, list and revoke API keys, directly in the store named by DATABASE_URL')
    .addHelpText(
      'after',
      '\nThese commands need no running server; they use the same configuration (.env, environment) as `perch serve`.',
    );

  keys
    .command('create')
    .description('create an API key and print it (shown only this once)')
    .addOption(
      new Option('--role <role>', 'what the key may do: app (read accounts) or admin (everything)')
        .choices(ROLES)
        .makeOptionMandatory(),
    )
    .requiredOption('--username <name>', 'who the key belongs to (1-100 characters)', textArgument('username'))
    .option('--name <text>', 'a label to recognise the key by, e.g. "nightly report"', textArgument('name'))
    .option(
      '--expires-at <iso>',
      'when the key stops working: a date (midnight UTC) or date-time with zone, e.g. 2027-01-31T18:00:00Z',
      parseExpiry,
    )
    .option('--json', 'print the result as JSON (the same fields as POST /api/admin/api-keys)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ perch keys create --role app --username bob\n  $ perch keys create --role admin --username ops --name "deploy bot" --expires-at 2027-01-31 --json',
    )
    .action(createKey);

  keys
    .command('list')
    .description('list API keys by id: role, owner, first characters, dates (never the secret)')
    .option('--all', 'include revoked keys')
    .option('--json', 'print the keys as a JSON array')
    .action(listAll);

  keys
    .command('revoke')
    .description('revoke an API key; servers refuse it within KEY_CACHE_TTL')
    .argument('<id>', 'the key id, as shown by `perch keys list` (key_…)')
    .addHelpText(
      'after',
      '\nThe last admin key cannot be revoked while ADMIN_API_KEY is unset: create another admin key first.',
    )
    .action(revoke);
}
