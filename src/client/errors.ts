/**
 * What can go wrong besides an action's own failure (which is a reply, not an error). Each kind is
 * documented here and in docs/client.md; test/client checks the two lists agree.
 */
export const AUTHSVC_ERROR_KINDS = [
  'invalid-request', // refused by the client before sending: see `reason` (unknown action, bad client IP…)
  'bad-request', // 400: the server could not read the envelope (the client's checks passed: a protocol mismatch)
  'unauthorized', // 401: wrong key, expired or replayed token, or Host not allowed
  'not-found', // 404 or 405: wrong URL
  'too-large', // 413: the request body exceeds the server's maxbodysize
  'rate-limited', // 429: see retryAfterSeconds
  'unavailable', // 503: database down or server busy; retry later
  'server-error', // any other status
  'timeout', // no answer within timeoutMs
  'network', // connection refused, reset…
  'bad-response', // the reply could not be decrypted or is not an envelope
  'reqid-mismatch', // the reply answers another request: must be rejected
] as const;

export type AuthsvcErrorKind = (typeof AUTHSVC_ERROR_KINDS)[number];

/** Why the client refused to send (kind `invalid-request`); the server would have answered 400. */
export type InvalidRequestReason = 'unknown-action' | 'invalid-client-ip' | 'invalid-reqid' | 'body-not-object';

export class AuthsvcError extends Error {
  constructor(
    readonly kind: AuthsvcErrorKind,
    message: string,
    readonly status?: number,
    readonly retryAfterSeconds?: number,
    /** Set for kind `invalid-request`. */
    readonly reason?: InvalidRequestReason,
  ) {
    super(message);
    this.name = 'AuthsvcError';
  }
}
