/**
 * The codes a frontend mails for email verification and password resets, and checks when they come back. authsvc
 * mails them and never checks them: `user-set-emailverified` and `user-resetpass` trust the frontend to have done so.
 *
 * A code is `payload.signature`: the payload names the purpose, the address, the expiry and a random id, the signature
 * is an HMAC of it under the frontend's key. So a sign-up code cannot reset a password, a code cannot be altered or
 * made up, and an old one stops working. Each is good once: redeeming records its id in a store of used codes until
 * it expires (docs/design.md#mailed-codes-are-single-use).
 */
import { randomBytes } from 'node:crypto';
import { normaliseEmail } from '../protocol/addresses.js';
import { mac, sameText } from './kit-crypto.js';

/** What a code is for, e.g. 'verify-email' or 'reset-password': a code made for one purpose is refused for another. */
export type MailCodePurpose = string;

export interface MailCodeClaims {
  /** The address the code was mailed to, as authsvc stores it (trimmed, NFKC, lower case). */
  readonly email: string;
  readonly expiresAtMs: number;
  /** The random id a store of used codes records. */
  readonly id: string;
}

export type MailCodeRefusal = 'malformed' | 'tampered' | 'wrong-purpose' | 'expired' | 'used';

export type MailCodeCheck =
  ({ readonly ok: true } & MailCodeClaims) | { readonly ok: false; readonly reason: MailCodeRefusal };

/**
 * The ids of the codes redeemed, each kept until its code expires (then it would be refused anyway). `use` must be
 * atomic: of two calls with the same id, one only answers true. One process: `memoryUsedCodes()`; several
 * processes share one store, e.g. Redis's `SET id 1 NX PXAT expiresAtMs`.
 */
export interface UsedCodes {
  /** Records `id` as used; true when it was not recorded already. */
  use(id: string, expiresAtMs: number): boolean | Promise<boolean>;
}

/** Emails are compared as authsvc stores them: trimmed, NFKC, lower case (the server's own function). */
export { normaliseEmail };

const LABEL = 'mail-code';

export interface MakeMailCodeOptions {
  readonly purpose: MailCodePurpose;
  readonly email: string;
  readonly expiresAtMs: number;
}

export function makeMailCode(key: Uint8Array, options: MakeMailCodeOptions): string {
  const claims = {
    p: options.purpose,
    e: normaliseEmail(options.email),
    x: options.expiresAtMs,
    n: randomBytes(16).toString('base64url'),
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(key, LABEL, payload)}`;
}

export interface ReadMailCodeOptions {
  readonly purpose: MailCodePurpose;
  readonly nowMs: number;
}

/**
 * What a code says, when this frontend made it for `purpose` and it has not expired; it is not used up. For a page that
 * shows a form before the code is redeemed (the new password of a reset); act only on `redeemMailCode`'s answer.
 */
export function readMailCode(key: Uint8Array, code: string, options: ReadMailCodeOptions): MailCodeCheck {
  const [payload, signature, ...rest] = code.trim().split('.');
  if (payload === undefined || signature === undefined || payload === '' || rest.length > 0)
    return { ok: false, reason: 'malformed' };
  if (!sameText(signature, mac(key, LABEL, payload))) return { ok: false, reason: 'tampered' };
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof claims !== 'object' || claims === null) return { ok: false, reason: 'malformed' };
  const { p, e, x, n } = claims as Record<string, unknown>;
  if (typeof p !== 'string' || typeof e !== 'string' || typeof x !== 'number' || typeof n !== 'string')
    return { ok: false, reason: 'malformed' };
  if (!sameText(p, options.purpose)) return { ok: false, reason: 'wrong-purpose' };
  if (!(options.nowMs < x)) return { ok: false, reason: 'expired' };
  return { ok: true, email: e, expiresAtMs: x, id: n };
}

export interface RedeemMailCodeOptions extends ReadMailCodeOptions {
  readonly used: UsedCodes;
}

/** Checks a code as `readMailCode` does and uses it up: the same code is refused (`used`) from then on. */
export async function redeemMailCode(
  key: Uint8Array,
  code: string,
  options: RedeemMailCodeOptions,
): Promise<MailCodeCheck> {
  const read = readMailCode(key, code, options);
  if (!read.ok) return read;
  return (await options.used.use(`${options.purpose}:${read.id}`, read.expiresAtMs))
    ? read
    : { ok: false, reason: 'used' };
}

/**
 * A store of used codes in this process's memory, for a frontend that runs as one process. Expired ids are dropped as
 * new ones come, so it holds at most the codes redeemed within a code's lifetime.
 */
export function memoryUsedCodes(now: () => number = Date.now): UsedCodes {
  const used = new Map<string, number>();
  return {
    use(id, expiresAtMs) {
      const nowMs = now();
      for (const [known, until] of used) if (until <= nowMs) used.delete(known);
      if (used.has(id)) return false;
      used.set(id, expiresAtMs);
      return true;
    },
  };
}
