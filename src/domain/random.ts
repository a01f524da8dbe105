import { randomBytes } from 'node:crypto';
import type { Random } from './ports.js';

/** The operating system's CSPRNG (node:crypto), one call per request of bytes. */
export const randomSource: Random = { bytes: (length) => randomBytes(length) };

/** A UUIDv4 from injected randomness (RFC 9562 §5.4). */
export function uuidV4(random: Random): string {
  const b = random.bytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
