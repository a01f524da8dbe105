import { isIP } from 'node:net';

/**
 * A Host value or allow-list entry in comparable form: lower case, without the port, IPv6 without
 * brackets. Returns '' for something that is not a host.
 */
export function normaliseHost(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end > 1 ? host.slice(1, end) : '';
  }
  if (isIP(host) === 6) return host; // a bare IPv6 entry in the allow-list
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}
