/**
 * Strict base64 decoding. Node's decoder is lenient (it skips characters outside the alphabet and
 * accepts missing padding), so two different bodies could decode to the same token. We check the
 * alphabet and the length first, so every body maps to exactly one outcome.
 */

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URLSAFE = /^[A-Za-z0-9_-]*={0,2}$/;

function decode(text: string, alphabet: RegExp, encoding: 'base64' | 'base64url'): Buffer | null {
  if (!alphabet.test(text)) return null;
  // Padding is required, as Python's decoders (and so the reference) require it: text must be a
  // whole number of 4-character groups.
  if (text.length % 4 !== 0) return null;
  const bytes = Buffer.from(text, encoding);
  // Reject non-canonical encodings (unused low bits set): re-encoding must give the same text.
  const again = bytes.toString(encoding).replace(/=+$/, '');
  return again === text.replace(/=+$/, '') ? bytes : null;
}

/** Standard alphabet (`+/`), with its `=` padding. */
export function decodeBase64(text: string): Buffer | null {
  return decode(text, STANDARD, 'base64');
}

/** URL-safe alphabet (`-_`), with its `=` padding. */
export function decodeBase64Url(text: string): Buffer | null {
  return decode(text, URLSAFE, 'base64url');
}

/** URL-safe base64 with `=` padding, as Python's `base64.urlsafe_b64encode` writes it. */
export function encodeBase64UrlPadded(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}
