/**
 * CSRF tokens tied to the session: the token of a form is an HMAC of the session token under the frontend's key, so
 * it needs no storage, and a token taken from one visitor's page is worthless with another session.
 */
import { mac, sameText } from './kit-crypto.js';

/** The token to put into every form (and the `X-CSRF-Token` header of a script's request) of this session. */
export function csrfToken(key: Uint8Array, sessionToken: string): string {
  return mac(key, 'csrf', sessionToken);
}

/** True when `presented` is this session's token; compared in constant time. */
export function csrfValid(key: Uint8Array, sessionToken: string, presented: string | null | undefined): boolean {
  if (typeof presented !== 'string' || sessionToken === '') return false;
  return sameText(presented, csrfToken(key, sessionToken));
}
