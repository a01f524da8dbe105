/**
 * The catalogue of expected failures. Each code (the closed set is the protocol's: FAILURE_CODES) has
 * the internal `failure_reason` (never to be shown to end users: it states the exact cause) and the
 * HTTP status of the answer. The end-user message depends on the action as well, so it lives with the
 * action (src/actions/*).
 */
import type { FailureCode } from '../protocol/index.js';

/** Every code of the protocol, none missing and none added (the `satisfies` checks both). */
export const failures = {
  invalid_params: { reason: 'invalid request parameters', status: 200 },
  session_not_found: { reason: 'session does not exist or expired', status: 200 },
  user_not_found: { reason: 'user does not exist', status: 200 },
  no_sessions: { reason: 'no sessions matched', status: 200 },
  extra_info_too_large: { reason: 'the merged dict would exceed its size or depth bounds', status: 200 },
  edit_conflict: { reason: 'concurrent edits kept changing the record; nothing was written', status: 200 },
  insecure_password: { reason: 'password is insecure or invalid', status: 200 },
  // Accounts: sign-up, login, password changes.
  invalid_email: { reason: 'invalid email', status: 200 },
  invalid_full_name: { reason: 'invalid full name', status: 200 },
  user_exists: { reason: 'user exists', status: 200 },
  system_id_taken: { reason: 'system_id is already in use', status: 200 },
  wrong_credentials: { reason: "user does not exist or password doesn't match", status: 200 },
  temporarily_locked: { reason: 'user is temporarily locked after too many failed logins', status: 200 },
  user_inactive: { reason: 'user exists but is inactive', status: 200 },
  session_user_mismatch: { reason: 'the session belongs to another user', status: 200 },
  wrong_password: { reason: 'user password does not match', status: 200 },
  password_unchanged: { reason: 'password did not change', status: 200 },
  required_active_mismatch: { reason: 'user does not exist or is_active was not as required', status: 200 },
  db_unavailable: { reason: 'database unavailable', status: 503 },
  busy: { reason: 'server busy: too many password hashes waiting', status: 503 },
  // Authorization (user-check-access, user-check-limit); the reference's reasons where it has one.
  access_denied: { reason: 'action not permitted', status: 200 },
  role_not_in_policy: { reason: 'role not in policy', status: 200 },
  name_not_in_policy: { reason: 'item, action or visibility not in policy', status: 200 },
  caller_not_valid: { reason: 'user initiating request is not valid', status: 200 },
  target_users_not_valid: { reason: 'users specified as owner or shared-with not found', status: 200 },
  over_limit: { reason: 'user is over limit', status: 200 },
  caller_not_found: { reason: 'user attempting access not found', status: 200 },
  // Account administration (issue 6: user-edit, user-lock, user-delete, internal-user-edit, lookups).
  system_account: { reason: "can't edit, lock or delete the system anonymous/locked accounts (2, 3)", status: 200 },
  session_mismatch: { reason: 'session does not belong to the initiating user', status: 200 },
  role_mismatch: { reason: "user_role is not the initiating user's stored role", status: 200 },
  not_superuser: { reason: "user role is not 'superuser', required for this action", status: 200 },
  edit_not_permitted: { reason: 'the initiating user may not edit these items of this user', status: 200 },
  protected_account: {
    reason: "the role and activity of account 1 and of one's own account can't be edited",
    status: 200,
  },
  locked_via_user_lock: {
    reason: 'locking, unlocking and the role or activity of a locked account go through user-lock',
    status: 200,
  },
  role_change_not_valid: { reason: 'role change requested is not valid', status: 200 },
  self_lock: { reason: "can't toggle a lock state on self", status: 200 },
  email_taken: { reason: 'email already in use by another user', status: 200 },
  forbidden_update_keys: { reason: 'update_dict holds items that may not be edited', status: 200 },
  cannot_delete_superuser: { reason: "can't delete superusers", status: 200 },
  // Email actions (issue 14): refusals look alike to the end user; only these reasons differ.
  email_ineligible: { reason: 'the account is not eligible for this email', status: 200 },
  email_window: { reason: 'forgot-pass email sent less than 24 hours ago', status: 200 },
  email_link_refused: { reason: 'server_baseurl and the URL fragment do not make a safe http(s) link', status: 200 },
  email_header_refused: { reason: 'a header item (server name, address, sender) is not safe', status: 200 },
  smtp_insecure_auth: {
    reason: 'the mail server offers no STARTTLS; credentials are not sent unencrypted to a remote server',
    status: 200,
  },
  smtp_unreachable: { reason: 'mail server unreachable', status: 200 },
  smtp_timeout: { reason: 'mail server timed out', status: 200 },
  smtp_tls: { reason: 'TLS with the mail server failed', status: 200 },
  smtp_auth: { reason: 'mail server authentication failed', status: 200 },
  smtp_rejected: { reason: 'mail server refused the message or the recipient', status: 200 },
  smtp_failed: { reason: 'mail could not be sent', status: 200 },
  // API keys (issue 12): the reference's reasons where it has one.
  apikey_issue_denied: { reason: 'user not allowed to issue API key', status: 200 },
  apikey_access_denied: { reason: 'originating user is not allowed to operate on this API key', status: 200 },
  apikey_session_invalid: { reason: 'invalid session for user requesting API key issuance', status: 200 },
  apikey_malformed: {
    reason: 'the API key dict is malformed: it must hold exactly the fields issued, with their types',
    status: 200,
  },
  apikey_invalid: {
    reason: 'key validation failed, provided key does not match stored key or has expired',
    status: 200,
  },
  apikey_owner_mismatch: { reason: "the request's user_id and user_role are not the key's uid and rol", status: 200 },
  refresh_token_invalid: { reason: 'provided API key has no valid refresh token', status: 200 },
  refresh_token_rotated: {
    reason: 'the refresh token was exchanged moments ago by another request; nothing was changed',
    status: 200,
  },
} as const satisfies Record<FailureCode, { reason: string; status: number }>;

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
