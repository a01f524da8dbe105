/** What is made from injected randomness: UUIDs and tokens, and the hash a token is stored as. */
import { createHash } from 'node:crypto';
import type { Random } from './ports.js';

/** A UUIDv4 from injected randomness (RFC 9562 §5.4). */
export function uuidV4(random: Random): string {
  const b = random.bytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Session tokens, API key `tkn` and refresh tokens: 32 random bytes, base64url, 43 characters. */
export function newToken(random: Random): string {
  return random.bytes(32).toString('base64url');
}

/** A session's public id (docs/design.md#devices): 16 random bytes, base64url, 22 characters; not the token's hash. */
export function newSessionId(random: Random): string {
  return random.bytes(16).toString('base64url');
}

/**
 * Tokens are stored only as SHA-256 hashes (hex): a copy of the database then opens no session.
 * A plain hash suffices because the tokens carry 256 bits of entropy (no dictionary to try).
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
