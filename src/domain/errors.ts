/**
 * The catalogue of expected failures. Each code (the closed set is the protocol's: FAILURE_CODES) has
 * the internal `failure_reason` (never to be shown to end users: it states the exact cause) and the
 * HTTP status of the answer. The texts are the protocol's own (FAILURE_REASONS), not a copy, so the
 * server and the client cannot disagree on them. The end-user message depends on the action as well,
 * so it lives with the action (src/actions/*).
 */
import { FAILURE_CODES, FAILURE_REASONS } from '../protocol/index.js';
import type { FailureCode, FailureReason } from '../protocol/index.js';

/** Only a server that cannot serve answers with another status than 200: the outcome is in the body. */
const STATUS_OTHER_THAN_200: Partial<Record<FailureCode, number>> = { db_unavailable: 503, busy: 503 };

export const failures = Object.fromEntries(
  FAILURE_CODES.map((code) => [code, { reason: FAILURE_REASONS[code], status: STATUS_OTHER_THAN_200[code] ?? 200 }]),
) as { readonly [C in FailureCode]: { readonly reason: FailureReason<C>; readonly status: number } };

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
