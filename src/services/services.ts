// The use cases grouped with their collaborators, as a process builds them once: the ones a
// `perch` command runs without a server (keys, imports, webhooks; a command opens its store here,
// so `cli/` reaches the store through services/ like the API and the dashboard), and a server's,
// which adds account reads, key checks and dashboard sessions (compose.ts builds those).
import type { Clock } from '../clock.ts';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { deriveKey } from '../domain/sealed-box.ts';
import { resolveKeyHashSecret } from '../storage/key-secret.ts';
import { openStore, type Store } from '../storage/store.ts';
import type { AlertDeps } from './alerts.ts';
import type { KeyAuthenticator, KeyDeps } from './api-keys.ts';
import type { AuthDeps } from './authenticate.ts';
import type { ServiceDeps } from './context.ts';
import type { FollowerDeps } from './followers.ts';
import type { ImportDeps } from './import-accounts.ts';
import type { SessionDeps } from './ui-sessions.ts';
import type { WebhookDeps } from './webhooks.ts';
import type { DigestDeps } from './digests.ts';

/** What a `perch` command runs. */
export interface CommandServices {
  keys: KeyDeps;
  imports: ImportDeps;
  webhooks: WebhookDeps;
  alerts: AlertDeps;
  digests: DigestDeps;
}

/** Every group of use cases a server runs, each with its collaborators. */
export interface Services extends CommandServices {
  /** Account reads, admin changes, history and posts. */
  accounts: ServiceDeps;
  /** Follower lists: switching them, their cost, their pages. */
  followers: FollowerDeps;
  /** Checking a presented key and counting a refusal. */
  auth: AuthDeps;
  /** The dashboard's sign-ins. */
  sessions: SessionDeps;
}

/**
 * The command use cases on `store`. `authenticator` is the process's key checks (a server's), told
 * of a revocation at once; `notifyDeliverer` wakes the process's webhook deliverer, if it runs one.
 */
export function commandServices(
  config: Config,
  store: Store,
  clock: Clock,
  secret: string,
  authenticator: KeyAuthenticator | null,
  notifyDeliverer: () => void = () => {},
): CommandServices {
  const sealKey = deriveKey(secret, 'idempotent-responses');
  const envAdminConfigured = config.adminApiKey !== null;
  return {
    keys: { store, clock, secret, sealKey, envAdminConfigured, authenticator },
    imports: { store, clock, config, sealKey },
    webhooks: {
      store,
      clock,
      keyHashSecret: secret,
      allowPrivate: config.webhookAllowPrivate,
      notify: notifyDeliverer,
    },
    alerts: { store, clock },
    digests: { store, clock, mailOn: config.smtpUrl !== null },
  };
}

/**
 * A command's use cases on the configured store (migrated first, as a server would), under the
 * same key secret as the server, so keys made here work there; `close` closes the store.
 */
export async function openCommandServices(
  config: Config,
): Promise<{ services: CommandServices; close(): Promise<void> }> {
  const store = await openStore(config.databaseUrl, { poolSize: 2, preparedStatements: config.preparedStatements });
  try {
    const secret = resolveKeyHashSecret(config.keyHashSecret, config.dataDir);
    return { services: commandServices(config, store, systemClock, secret, null), close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}
