/** IP addresses are stored in one canonical text form. */
import { isIP } from 'node:net';

export function normaliseIp(address: string): string {
  if (isIP(address) !== 6) return address;
  // The URL parser compresses and lower-cases IPv6 (RFC 5952 form)...
  const compact = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  // ...but writes IPv4-mapped addresses in hex; RFC 5952 §5 keeps their dotted form.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compact);
  if (mapped === null) return compact;
  const [hi, lo] = [parseInt(mapped[1] ?? '0', 16), parseInt(mapped[2] ?? '0', 16)];
  return `::ffff:${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether a string is an IP address we accept: IPv4 or IPv6, without a zone (`%eth0`). */
export function isIpAddress(address: string): boolean {
  return !address.includes('%') && isIP(address) !== 0;
}
