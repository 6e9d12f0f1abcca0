// Which account a dashboard URL names: /ui/accounts/:platform/:username, read the way the API reads names.
import { isPlatform } from '../../domain/platforms.ts';
import type { AppDeps } from '../../http/deps.ts';
import { accountRef, type NamedRef } from '../../services/account-refs.ts';

export function refOf(deps: AppDeps, params: unknown): NamedRef {
  const { platform, username } = params as { platform: string; username: string };
  return accountRef(username, isPlatform(platform) ? platform : undefined, deps.config.defaultPlatform);
}
