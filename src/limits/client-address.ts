// Who a client is, for the limits counted per client: its address, with an IPv6 client counted per
// /64 (one subscriber or host usually holds a whole /64, so per-address counting would let it
// rotate through 2^64 addresses). An IPv4 address mapped into IPv6 counts as the IPv4 address.
import { isIPv6 } from 'node:net';

/** The key a client's counts are kept under. */
export function clientKey(address: string): string {
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, lower-case, without leading zeros. */
function ipv6Groups(address: string): string[] {
  const bare = address.split('%')[0] ?? address;
  const [head = '', tail] = bare.split('::');
  const part = (text: string) => (text === '' ? [] : text.split(':'));
  // An embedded IPv4 tail (::1.2.3.4) is two groups; only the first four groups matter here anyway.
  const expand = (groups: string[]) => groups.flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const left = expand(part(head));
  const right = tail === undefined ? [] : expand(part(tail));
  const middle = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...middle, ...right].map((g) => Number.parseInt(g, 16).toString(16));
}

/**
 * A process not told to trust a proxy (TRUST_PROXY off) sees every request behind a load balancer
 * as coming from the balancer, so the per-client limits would count all clients as one. Requests
 * carrying X-Forwarded-For are the sign: say so once, with the setting that fixes it.
 */
export function untrustedForwardingWarning(log: {
  warn(object: object, message: string): void;
}): (forwardedFor: unknown) => void {
  let warned = false;
  return (forwardedFor) => {
    if (warned || forwardedFor === undefined) return;
    warned = true;
    log.warn(
      { header: 'x-forwarded-for' },
      "requests arrive with X-Forwarded-For but TRUST_PROXY is off: every client behind the proxy is counted as the proxy itself by the per-client limits. Set TRUST_PROXY to the proxies' addresses (or the number of hops) if perch runs behind a load balancer.",
    );
  };
}
