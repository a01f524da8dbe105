/**
 * Addresses in the one form they are compared and stored in: IP addresses, Host values and emails.
 */
import { isIP } from 'node:net';

/** IP addresses are stored in one canonical text form. */
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

/**
 * Emails are compared in this form everywhere (sign-up, login, lookup, edit, rate-limit keys): NFKC,
 * lower case, trimmed, so `A@x.org` and `a@x.org` are one address (the spec's case-insensitive logins).
 */
export function normaliseEmail(email: string): string {
  return email.normalize('NFKC').toLowerCase().trim();
}
