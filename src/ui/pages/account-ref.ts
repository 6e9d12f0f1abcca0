// Which account a dashboard URL names: /ui/accounts/:platform/:username, read the way the API reads names.
import { isPlatform } from '../../domain/platforms.ts';
import type { Platform } from '../../domain/platforms.ts';
import { accountRef, type NamedRef } from '../../services/account-refs.ts';

export function refOf(defaultPlatform: Platform, params: { platform: string; username: string }): NamedRef {
  const { platform, username } = params;
  return accountRef(username, isPlatform(platform) ? platform : undefined, defaultPlatform);
}
