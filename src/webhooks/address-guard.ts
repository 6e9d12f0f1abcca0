// Which addresses a webhook may never reach unless WEBHOOK_ALLOW_PRIVATE, and the check of a
// URL's addresses at creation (outbound.ts checks them again at connect time).
import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

// Addresses a webhook must not reach unless WEBHOOK_ALLOW_PRIVATE: the server's own and its
// network's (loopback, private, carrier NAT, link-local with cloud metadata, multicast, reserved).
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True for an address a webhook may not reach without WEBHOOK_ALLOW_PRIVATE. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** Every address `host` resolves to now. */
export async function resolveAll(host: string): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map((a) => a.address)),
    ),
  );
}

/** The host of a URL as the resolver wants it (no brackets around IPv6). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');
