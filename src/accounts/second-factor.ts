/**
 * The pieces of second factors that hold no state (docs/design.md#second-factors): TOTP per RFC 6238 as
 * authenticator apps use it (SHA-1, 6 digits, 30-second steps, one step either side accepted), recovery codes, and the
 * QR code of an otpauth:// URI. The state (which step was used, which code is spent) is the store's.
 */
import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Random } from '../domain/ports.js';

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of the current one that are still accepted (clock drift, a code typed late). */
export const TOTP_WINDOW = 1;
/** 160 bits, as RFC 4226 recommends and authenticator apps expect. */
const TOTP_SECRET_BYTES = 20;

export const RECOVERY_CODE_COUNT = 10;
/** 16 base32 characters: 80 bits each. */
const RECOVERY_CODE_CHARS = 16;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function totpOf(secretBase32: string, issuer = '', label = ''): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new TOTP secret, base32 (what authenticator apps take when typed in). */
export function newTotpSecret(random: Random): string {
  const bytes = random.bytes(TOTP_SECRET_BYTES);
  return new Secret({ buffer: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(secretBase32: string, issuer: string, account: string): string {
  return totpOf(secretBase32, issuer, account).toString();
}

/** The time step `nowMs` falls in. */
export const totpStepAt = (nowMs: number): number => Math.floor(nowMs / 1000 / TOTP_PERIOD_S);

/** The time step of `code` when it is right at `nowMs` (within the window), else null. */
export function totpStepOf(secretBase32: string, code: string, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: nowMs, window: TOTP_WINDOW });
  return delta === null ? null : totpStepAt(nowMs) + delta;
}

/** The code of `secretBase32` at `nowMs` (tests and the admin command line compute what an app would show). */
export function totpCodeAt(secretBase32: string, nowMs: number): string {
  return totpOf(secretBase32).generate({ timestamp: nowMs });
}

/** The QR code of `text` as an SVG document (qrcode is loaded by the first enrolment, not at start). */
export async function qrSvg(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/** New recovery codes, shown once: 16 base32 characters in groups of four (`abcd-efgh-ijkl-mnop`). */
export function newRecoveryCodes(random: Random): string[] {
  const codes: string[] = [];
  for (let i = 0; i < RECOVERY_CODE_COUNT; i++) {
    // 5 random bits per character from one byte each: 256 is a multiple of 32, so no character is likelier.
    const chars = [...random.bytes(RECOVERY_CODE_CHARS)].map((byte) => BASE32[byte % 32] ?? 'a');
    codes.push([0, 4, 8, 12].map((at) => chars.slice(at, at + 4).join('')).join('-'));
  }
  return codes;
}

/**
 * What a recovery code is stored as: the SHA-256 of its 16 characters, whatever case and separators it was typed
 * with. A code has 80 random bits, so a fast hash is enough (as for tokens). Null for text that cannot be a code.
 */
export function recoveryCodeHash(code: string): string | null {
  const bare = code.toLowerCase().replace(/[\s-]/g, '');
  if (!new RegExp(`^[a-z2-7]{${RECOVERY_CODE_CHARS}}$`).test(bare)) return null;
  return createHash('sha256').update(`authsvc recovery code:${bare}`).digest('hex');
}
