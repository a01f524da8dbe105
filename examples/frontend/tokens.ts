/**
 * The frontend's own tokens, made with a key authsvc never sees:
 * - the CSRF token of a form is an HMAC of the session token, so it is tied to the session (a token
 *   stolen from one visitor's page is worthless with another session) and needs no storage;
 * - the code mailed for email verification or a password reset is `payload.signature`, the payload
 *   naming the purpose, the email address and the expiry, so a sign-up code cannot reset a password,
 *   a code for one address cannot verify another, and an old code stops working.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type Purpose = 'verify-email' | 'reset-password';

function mac(key: Buffer, label: string, value: string): string {
  return createHmac('sha256', key).update(`${label}\n${value}`).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function csrfToken(key: Buffer, sessionToken: string): string {
  return mac(key, 'csrf', sessionToken);
}

export function csrfValid(key: Buffer, sessionToken: string, presented: string | undefined): boolean {
  return presented !== undefined && sameText(presented, csrfToken(key, sessionToken));
}

/** Emails are compared as authsvc stores them: trimmed, NFKC, lower case. */
export const normaliseEmail = (email: string): string => email.normalize('NFKC').trim().toLowerCase();

export function mailCode(key: Buffer, purpose: Purpose, email: string, expiresAtMs: number): string {
  const payload = Buffer.from(JSON.stringify({ p: purpose, e: normaliseEmail(email), x: expiresAtMs })).toString(
    'base64url',
  );
  return `${payload}.${mac(key, 'mail-code', payload)}`;
}

/** True when `code` was made by this frontend for this purpose and address, and has not expired. */
export function mailCodeValid(key: Buffer, purpose: Purpose, email: string, code: string, nowMs: number): boolean {
  const [payload, signature, ...rest] = code.trim().split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) return false;
  if (!sameText(signature, mac(key, 'mail-code', payload))) return false;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return false;
  }
  if (typeof claims !== 'object' || claims === null) return false;
  const { p, e, x } = claims as Record<string, unknown>;
  return p === purpose && e === normaliseEmail(email) && typeof x === 'number' && nowMs < x;
}
