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
  'session_id_not_found',
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
  // Second factors.
  'second_factor_required',
  'second_factor_enrollment_required',
  'second_factor_wrong',
  'login_ticket_invalid',
  'step_up_required',
  'no_second_factor',
  'factor_not_found',
  'factor_limit',
  'passkeys_off',
  'passkey_invalid',
] as const;

export type FailureCode = (typeof FAILURE_CODES)[number];

/**
 * Failures every action can answer with, so no declaration lists them: a body that fails its schema,
 * and the database or the password-hash queue being unavailable (HTTP 503).
 */
export const COMMON_FAILURES = ['invalid_params', 'db_unavailable', 'busy'] as const satisfies readonly FailureCode[];
export type CommonFailure = (typeof COMMON_FAILURES)[number];

/**
 * The `failure_reason` text the wire carries for each code: the server's catalogue (src/domain/errors.ts)
 * answers with these very texts. Not for end users: it states the exact cause.
 */
export const FAILURE_REASONS = {
  invalid_params: 'invalid request parameters',
  db_unavailable: 'database unavailable',
  busy: 'server busy: too many password hashes waiting',
  session_not_found: 'session does not exist or expired',
  user_not_found: 'user does not exist',
  no_sessions: 'no sessions matched',
  session_id_not_found: 'no live session of that user has this session_id',
  extra_info_too_large: 'the merged dict would exceed its size or depth bounds',
  edit_conflict: 'concurrent edits kept changing the record; nothing was written',
  insecure_password: 'password is insecure or invalid',
  invalid_email: 'invalid email',
  invalid_full_name: 'invalid full name',
  user_exists: 'user exists',
  system_id_taken: 'system_id is already in use',
  wrong_credentials: "user does not exist or password doesn't match",
  temporarily_locked: 'user is temporarily locked after too many failed logins',
  user_inactive: 'user exists but is inactive',
  session_user_mismatch: 'the session belongs to another user',
  wrong_password: 'user password does not match',
  password_unchanged: 'password did not change',
  required_active_mismatch: 'user does not exist or is_active was not as required',
  access_denied: 'action not permitted',
  role_not_in_policy: 'role not in policy',
  name_not_in_policy: 'item, action or visibility not in policy',
  caller_not_valid: 'user initiating request is not valid',
  target_users_not_valid: 'users specified as owner or shared-with not found',
  over_limit: 'user is over limit',
  caller_not_found: 'user attempting access not found',
  system_account: "can't edit, lock or delete the system anonymous/locked accounts (2, 3)",
  session_mismatch: 'session does not belong to the initiating user',
  role_mismatch: "user_role is not the initiating user's stored role",
  not_superuser: "user role is not 'superuser', required for this action",
  edit_not_permitted: 'the initiating user may not edit these items of this user',
  protected_account: "the role and activity of account 1 and of one's own account can't be edited",
  locked_via_user_lock: 'locking, unlocking and the role or activity of a locked account go through user-lock',
  role_change_not_valid: 'role change requested is not valid',
  self_lock: "can't toggle a lock state on self",
  email_taken: 'email already in use by another user',
  forbidden_update_keys: 'update_dict holds items that may not be edited',
  cannot_delete_superuser: "can't delete superusers",
  email_ineligible: 'the account is not eligible for this email',
  email_window: 'forgot-pass email sent less than 24 hours ago',
  email_link_refused: 'server_baseurl and the URL fragment do not make a safe http(s) link',
  email_header_refused: 'a header item (server name, address, sender) is not safe',
  smtp_insecure_auth: 'the mail server offers no STARTTLS; credentials are not sent unencrypted to a remote server',
  smtp_unreachable: 'mail server unreachable',
  smtp_timeout: 'mail server timed out',
  smtp_tls: 'TLS with the mail server failed',
  smtp_auth: 'mail server authentication failed',
  smtp_rejected: 'mail server refused the message or the recipient',
  smtp_failed: 'mail could not be sent',
  apikey_issue_denied: 'user not allowed to issue API key',
  apikey_access_denied: 'originating user is not allowed to operate on this API key',
  apikey_session_invalid: 'invalid session for user requesting API key issuance',
  apikey_malformed: 'the API key dict is malformed: it must hold exactly the fields issued, with their types',
  apikey_invalid: 'key validation failed, provided key does not match stored key or has expired',
  apikey_owner_mismatch: "the request's user_id and user_role are not the key's uid and rol",
  refresh_token_invalid: 'provided API key has no valid refresh token',
  refresh_token_rotated: 'the refresh token was exchanged moments ago by another request; nothing was changed',
  second_factor_required: 'the password is right; the user has a second factor: finish with user-login-secondfactor',
  second_factor_enrollment_required:
    "the password is right; the user's role needs a second factor: add one with the login_ticket (user-totp-new)",
  second_factor_wrong: 'the second factor did not verify',
  login_ticket_invalid: 'login ticket unknown, expired, spent, revoked, out of tries or for another session',
  step_up_required: 'this needs a second factor proved on this session within stepupwindow (user-stepup)',
  no_second_factor: 'the user has no active second factor (of the kind asked for: a passkey, for passkey options)',
  factor_not_found: 'the user has no such factor',
  factor_limit: 'the user has as many factors as allowed',
  passkeys_off: 'passkeys are off on this server (no passkeyorigins)',
  passkey_invalid:
    'the passkey did not verify: challenge unknown, spent or for another session, or a wrong origin, relying party, signature, counter or user',
} as const satisfies Record<FailureCode, string>;

export type FailureReason<C extends FailureCode = FailureCode> = (typeof FAILURE_REASONS)[C];

const CODE_OF_REASON: ReadonlyMap<string, FailureCode> = new Map(
  (Object.keys(FAILURE_REASONS) as FailureCode[]).map((code) => [FAILURE_REASONS[code], code]),
);

/** The failure code a `failure_reason` text stands for (each text is one code's); null for an unknown text. */
export function failureCodeOf(reason: string): FailureCode | null {
  return CODE_OF_REASON.get(reason) ?? null;
}
