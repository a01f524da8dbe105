/**
 * Who may read /metrics: IP addresses and CIDR ranges (the `metricsallow` item). The figures say how
 * busy the server is and how often logins fail, which helps an attacker time a guessing campaign, so
 * by default only this machine may read them.
 */
import { BlockList, isIP } from 'node:net';

export interface AddressRange {
  readonly family: 'ipv4' | 'ipv6';
  readonly network: string;
  readonly prefix: number;
}

/** An address written as IPv4 mapped into IPv6 (`::ffff:10.0.0.1`, how a dual-stack socket reports it) as IPv4. */
function unmapped(address: string): string {
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return isIP(v4) === 4 ? v4 : address;
}

/** `10.0.0.0/8`, `::1`, `192.0.2.7`: a range, or null when the text is none. */
export function parseAddressRange(text: string): AddressRange | null {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  if (rest.length > 0) return null;
  const network = unmapped(address);
  const version = isIP(network);
  if (version === 0) return null;
  const bits = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return null;
  return { family: version === 4 ? 'ipv4' : 'ipv6', network, prefix };
}

/** Whether a peer address (as the socket reports it) lies in one of the ranges. */
export function peerMatcher(ranges: readonly AddressRange[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const { family, network, prefix } of ranges) list.addSubnet(network, prefix, family);
  return (address) => {
    if (address === undefined) return false;
    const peer = unmapped(address);
    const version = isIP(peer);
    return version !== 0 && list.check(peer, version === 4 ? 'ipv4' : 'ipv6');
  };
}
