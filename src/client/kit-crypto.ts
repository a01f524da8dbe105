/**
 * The frontend kit's two primitives: an HMAC under the frontend's own key, with a label per use (so a CSRF token is
 * never a valid mail-code signature), and a constant-time comparison of two strings.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The frontend's key must be at least this long: 256 bits, as the HMAC's hash. */
export const MIN_KEY_BYTES = 32;

export function checkKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.byteLength < MIN_KEY_BYTES)
    throw new TypeError(`authsvc client: the frontend key must hold at least ${MIN_KEY_BYTES} bytes`);
}

export function mac(key: Uint8Array, label: string, value: string): string {
  checkKey(key);
  return createHmac('sha256', key).update(`${label}\n${value}`).digest('base64url');
}

const digest = (text: string): Uint8Array => createHash('sha256').update(text, 'utf8').digest();

/** Equal texts, compared in constant time: their SHA-256 digests always have the same length, whatever was presented. */
export function sameText(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}
