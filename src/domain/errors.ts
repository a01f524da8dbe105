/**
 * The catalogue of expected failures. Each code (the closed set is the protocol's: FAILURE_CODES) has
 * the internal `failure_reason` (never to be shown to end users: it states the exact cause); the HTTP
 * status of the answer is the transport's (httpStatusOf, http/envelope.ts). The texts are the protocol's own (FAILURE_REASONS), not a copy, so the
 * server and the client cannot disagree on them. The end-user message depends on the action as well,
 * so it lives with the action (src/actions/*).
 */
import { FAILURE_CODES, FAILURE_REASONS } from '../protocol/index.js';
import type { FailureCode, FailureReason } from '../protocol/index.js';

export const failures = Object.fromEntries(FAILURE_CODES.map((code) => [code, { reason: FAILURE_REASONS[code] }])) as {
  readonly [C in FailureCode]: { readonly reason: FailureReason<C> };
};

/** Infrastructure faults that are not bugs: they map to a status, never to a 500. */
export class UnavailableError extends Error {
  constructor(
    readonly code: 'db_unavailable' | 'busy',
    options?: ErrorOptions,
  ) {
    super(failures[code].reason, options);
    this.name = 'UnavailableError';
  }
}
