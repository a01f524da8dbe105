import { createHash } from 'node:crypto';
import type { Random } from './ports.js';

/** Session tokens, API key `tkn` and refresh tokens: 32 random bytes, base64url, 43 characters. */
export function newToken(random: Random): string {
  return random.bytes(32).toString('base64url');
}

/**
 * Tokens are stored only as SHA-256 hashes (hex): a copy of the database then opens no session.
 * A plain hash suffices because the tokens carry 256 bits of entropy (no dictionary to try).
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
