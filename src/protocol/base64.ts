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
