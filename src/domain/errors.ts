/**
 * The closed catalogue of expected failures. Each code has the internal `failure_reason` (never to be
 * shown to end users: it states the exact cause) and the HTTP status of the answer. The end-user
 * message depends on the action as well, so it lives with the action (src/actions/*).
 */
export const failures = {
  invalid_params: { reason: 'invalid request parameters', status: 200 },
  session_not_found: { reason: 'session does not exist or expired', status: 200 },
  user_not_found: { reason: 'user does not exist', status: 200 },
  no_sessions: { reason: 'no sessions matched', status: 200 },
  extra_info_too_large: { reason: 'the merged dict would exceed its size or depth bounds', status: 200 },
  edit_conflict: { reason: 'concurrent edits kept changing the record; nothing was written', status: 200 },
  insecure_password: { reason: 'password is insecure or invalid', status: 200 },
  db_unavailable: { reason: 'database unavailable', status: 503 },
  busy: { reason: 'server busy: too many password hashes waiting', status: 503 },
} as const satisfies Record<string, { reason: string; status: number }>;

export type FailureCode = keyof typeof failures;

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
