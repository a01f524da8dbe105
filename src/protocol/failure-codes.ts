/**
 * The closed set of failure codes an action can answer with. The wire carries the code's
 * `failure_reason` text, which the server's catalogue (src/domain/errors.ts) maps from the code with
 * the HTTP status; each action declares which codes it may return (src/protocol/actions/*).
 */
export const FAILURE_CODES = [
  'invalid_params',
  'db_unavailable',
  'busy',
  'session_not_found',
  'user_not_found',
  'no_sessions',
  'extra_info_too_large',
  'edit_conflict',
  'insecure_password',
  // Accounts: sign-up, login, password changes.
  'invalid_email',
  'invalid_full_name',
  'user_exists',
  'system_id_taken',
  'wrong_credentials',
  'temporarily_locked',
  'user_inactive',
  'session_user_mismatch',
  'wrong_password',
  'password_unchanged',
  'required_active_mismatch',
  // Authorization (user-check-access, user-check-limit).
  'access_denied',
  'role_not_in_policy',
  'name_not_in_policy',
  'caller_not_valid',
  'target_users_not_valid',
  'over_limit',
  'caller_not_found',
  // Account administration (user-edit, user-lock, user-delete, internal-user-edit, lookups).
  'system_account',
  'session_mismatch',
  'role_mismatch',
  'not_superuser',
  'edit_not_permitted',
  'protected_account',
  'locked_via_user_lock',
  'role_change_not_valid',
  'self_lock',
  'email_taken',
  'forbidden_update_keys',
  'cannot_delete_superuser',
  // Email actions: refusals look alike to the end user; only these reasons differ.
  'email_ineligible',
  'email_window',
  'email_link_refused',
  'email_header_refused',
  'smtp_insecure_auth',
  'smtp_unreachable',
  'smtp_timeout',
  'smtp_tls',
  'smtp_auth',
  'smtp_rejected',
  'smtp_failed',
  // API keys: the reference's reasons where it has one.
  'apikey_issue_denied',
  'apikey_access_denied',
  'apikey_session_invalid',
  'apikey_malformed',
  'apikey_invalid',
  'apikey_owner_mismatch',
  'refresh_token_invalid',
  'refresh_token_rotated',
] as const;

export type FailureCode = (typeof FAILURE_CODES)[number];

/**
 * Failures every action can answer with, so no declaration lists them: a body that fails its schema,
 * and the database or the password-hash queue being unavailable (HTTP 503).
 */
export const COMMON_FAILURES = ['invalid_params', 'db_unavailable', 'busy'] as const satisfies readonly FailureCode[];
export type CommonFailure = (typeof COMMON_FAILURES)[number];
