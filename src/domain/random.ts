import { randomBytes, randomFillSync } from 'node:crypto';
import type { Random } from './ports.js';

/** Requests up to this size are served from the pool; larger ones get their own call. */
const POOLED_MAX = 64;
const POOL_SIZE = 4096;

/**
 * Random bytes from the operating system's CSPRNG, small requests served from a pool filled 4 KiB at
 * a time: a reply's IV or a token then costs a copy instead of a call into OpenSSL each. Every byte is
 * handed out once and wiped from the pool as it goes; the pool belongs to one process (workers are
 * started afresh, never forked with a copy of it).
 */
export function pooledRandom(): Random {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return {
    bytes(length) {
      if (length > POOLED_MAX) return randomBytes(length);
      if (offset + length > pool.length) {
        pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_SIZE));
        offset = 0;
      }
      const out = Buffer.from(pool.subarray(offset, offset + length));
      pool.fill(0, offset, offset + length);
      offset += length;
      return out;
    },
  };
}

export const randomSource: Random = pooledRandom();

/** A UUIDv4 from injected randomness (RFC 9562 §5.4). */
export function uuidV4(random: Random): string {
  const b = random.bytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
