/**
 * Fernet (https://github.com/fernet/spec) on node:crypto.
 *
 * Token = 0x80 ‖ timestamp (u64 BE seconds) ‖ IV (16) ‖ AES-128-CBC ciphertext ‖ HMAC-SHA256 (32),
 * URL-safe base64 with padding. A key is 32 bytes: the first 16 sign, the last 16 encrypt.
 *
 * A key list supports rotation: the first key encrypts, every key is tried to decrypt.
 *
 * The strict base64 the token and the envelope around it are read with is here too (below).
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Strict base64 decoding. Node's decoder is lenient (it skips characters outside the alphabet and
 * accepts missing padding), so two different bodies could decode to the same token. We check the
 * alphabet, the length and the unused bits first, so every body maps to exactly one outcome.
 */

/** The 6-bit value of each character of either alphabet (both share A–Z, a–z, 0–9). */
const SEXTET = new Uint8Array(128);
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
for (let i = 0; i < DIGITS.length; i++) SEXTET[DIGITS.charCodeAt(i)] = i;
SEXTET['+'.charCodeAt(0)] = SEXTET['-'.charCodeAt(0)] = 62;
SEXTET['/'.charCodeAt(0)] = SEXTET['_'.charCodeAt(0)] = 63;

const EQUALS = 0x3d;

/**
 * Whether the bits the last character carries beyond the data are zero: only then does the text
 * re-encode to itself (one `=` leaves 2 unused bits, two leave 4; no padding leaves none).
 */
function canonical(text: string): boolean {
  const end = text.length;
  if (end === 0 || text.charCodeAt(end - 1) !== EQUALS) return true;
  if (text.charCodeAt(end - 2) === EQUALS) return ((SEXTET[text.charCodeAt(end - 3)] ?? 0) & 0x0f) === 0;
  return ((SEXTET[text.charCodeAt(end - 2)] ?? 0) & 0x03) === 0;
}

/**
 * Node decodes either alphabet in either mode and skips what is in neither (spaces, `=` inside, any
 * other character) without a word. So: a whole number of 4-character groups, at most two `=` and only
 * at the end, none of the other alphabet's two characters, unused low bits zero; then the decoded
 * length must be exactly what that many characters carry, which fails if Node skipped even one.
 * (Two `includes` scans and a length check cost a fraction of a regex over a 1–2 KB body.)
 */
function decode(text: string, foreign: readonly [string, string], encoding: 'base64' | 'base64url'): Buffer | null {
  // Padding is required, as Python's decoders (and so the reference) require it: text must be a
  // whole number of 4-character groups. Non-canonical encodings (unused low bits set) are refused.
  const length = text.length;
  if (length % 4 !== 0 || text.includes(foreign[0]) || text.includes(foreign[1])) return null;
  let padding = 0;
  while (padding < 3 && padding < length && text.charCodeAt(length - 1 - padding) === EQUALS) padding++;
  if (padding > 2 || !canonical(text)) return null;
  const bytes = Buffer.from(text, encoding);
  return bytes.length === (length / 4) * 3 - padding ? bytes : null;
}

/** Standard alphabet (`+/`), with its `=` padding. */
export function decodeBase64(text: string): Buffer | null {
  return decode(text, ['-', '_'], 'base64');
}

/** URL-safe alphabet (`-_`), with its `=` padding. */
export function decodeBase64Url(text: string): Buffer | null {
  return decode(text, ['+', '/'], 'base64url');
}

/** URL-safe base64 with `=` padding, as Python's `base64.urlsafe_b64encode` writes it. */
export function encodeBase64UrlPadded(bytes: Uint8Array): string {
  // Node's base64url leaves the padding out; it completes the text to a multiple of 4 characters.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
  return text + '='.repeat((4 - (text.length % 4)) % 4);
}

const VERSION = 0x80;
const HEADER = 1 + 8 + 16;
const MAC = 32;
const BLOCK = 16;
/** The smallest token: header, one block of ciphertext, the MAC. */
const MIN_TOKEN = HEADER + BLOCK + MAC;

export interface FernetKey {
  readonly signing: Buffer;
  readonly encryption: Buffer;
}

export type FernetFailure =
  | 'malformed' // not base64url, wrong version byte, too short, ciphertext not whole blocks
  | 'bad-signature' // no key's HMAC matches
  | 'bad-padding' // HMAC matched but the plaintext padding is wrong (only a key holder can cause this)
  | 'expired' // older than the allowed age
  | 'future'; // timestamped further ahead than the allowed clock skew

export type FernetResult =
  | {
      readonly ok: true;
      readonly plaintext: Buffer;
      /** Seconds since the epoch, as written in the token. */
      readonly timestamp: number;
      /** The token's HMAC: a compact, unique name for the token (the replay cache keys on it). */
      readonly mac: Buffer;
    }
  | { readonly ok: false; readonly reason: FernetFailure };

export interface DecryptOptions {
  /** Current time in milliseconds since the epoch. */
  readonly nowMs: number;
  /** Maximum age in seconds; omit to accept any age. */
  readonly ttlSeconds?: number;
  /** Maximum clock skew into the future, in seconds (the Fernet spec uses 60). */
  readonly maxSkewSeconds?: number;
}

/** Parses one Fernet key (URL-safe base64 of 32 bytes); null when it is not one. */
export function parseFernetKey(text: string): FernetKey | null {
  const bytes = decodeBase64Url(text.trim());
  if (bytes === null || bytes.length !== 32) return null;
  return { signing: bytes.subarray(0, 16), encryption: bytes.subarray(16) };
}

/** A new random key in the usual text form (44 characters). */
export function generateFernetKey(): string {
  return encodeBase64UrlPadded(randomBytes(32));
}

function mac(key: FernetKey, signed: Buffer): Buffer {
  return createHmac('sha256', key.signing).update(signed).digest();
}

const TWO_32 = 2 ** 32;

export function fernetEncrypt(key: FernetKey, plaintext: Uint8Array, timestampSeconds: number, iv: Uint8Array): string {
  if (iv.length !== 16) throw new RangeError('Fernet IV must be 16 bytes');
  const cipher = createCipheriv('aes-128-cbc', key.encryption, iv);
  const head = cipher.update(plaintext);
  const tail = cipher.final();
  // One buffer for the whole token: header, ciphertext, then the MAC written into its place.
  const signedLength = HEADER + head.length + tail.length;
  const token = Buffer.allocUnsafe(signedLength + MAC);
  const seconds = Math.floor(timestampSeconds);
  token[0] = VERSION;
  token.writeUInt32BE(Math.floor(seconds / TWO_32), 1);
  token.writeUInt32BE(seconds % TWO_32, 5);
  token.set(iv, 9);
  token.set(head, HEADER);
  token.set(tail, HEADER + head.length);
  const signed = token.subarray(0, signedLength);
  token.set(mac(key, signed), signedLength);
  return encodeBase64UrlPadded(token);
}

export function fernetDecrypt(keys: readonly FernetKey[], token: string, options: DecryptOptions): FernetResult {
  const raw = decodeBase64Url(token);
  if (raw === null || raw.length < MIN_TOKEN || raw[0] !== VERSION) return { ok: false, reason: 'malformed' };
  if ((raw.length - HEADER - MAC) % BLOCK !== 0) return { ok: false, reason: 'malformed' };

  const signed = raw.subarray(0, raw.length - MAC);
  const given = raw.subarray(raw.length - MAC);
  // Compare MACs in constant time so a forger learns nothing from response timing.
  const key = keys.find((k) => timingSafeEqual(mac(k, signed), given));
  if (key === undefined) return { ok: false, reason: 'bad-signature' };

  const timestamp = raw.readUInt32BE(1) * TWO_32 + raw.readUInt32BE(5);
  const nowSeconds = Math.floor(options.nowMs / 1000);
  if (options.maxSkewSeconds !== undefined && timestamp - nowSeconds > options.maxSkewSeconds) {
    return { ok: false, reason: 'future' };
  }
  if (options.ttlSeconds !== undefined && nowSeconds - timestamp > options.ttlSeconds) {
    return { ok: false, reason: 'expired' };
  }

  try {
    const decipher = createDecipheriv('aes-128-cbc', key.encryption, raw.subarray(9, HEADER));
    const plaintext = Buffer.concat([decipher.update(raw.subarray(HEADER, raw.length - MAC)), decipher.final()]);
    return { ok: true, plaintext, timestamp, mac: Buffer.from(given) };
  } catch {
    return { ok: false, reason: 'bad-padding' };
  }
}
