/**
 * The user info dict every user action answers with (docs/design.md#who-may-call-what): one place turns a stored
 * record into the wire dict, so the keys stay the same everywhere and the password never leaves.
 */
import { formatDateTime, formatOptionalDateTime } from '../protocol/index.js';
import type { UserInfoDict } from '../protocol/index.js';
import type { UserRecord } from '../services/store/index.js';

export function userInfo(user: UserRecord): UserInfoDict {
  return {
    user_id: user.userId,
    system_id: user.systemId,
    full_name: user.fullName,
    email: user.email,
    email_verified: user.emailVerified,
    is_active: user.isActive,
    user_role: user.userRole,
    extra_info: user.extraInfo,
    created_on: formatDateTime(user.createdOn),
    last_updated: formatDateTime(user.lastUpdated),
    last_login_try: formatOptionalDateTime(user.lastLoginTry),
    last_login_success: formatOptionalDateTime(user.lastLoginSuccess),
    failed_login_tries: user.failedLoginTries,
    emailverify_sent_datetime: formatOptionalDateTime(user.emailverifySentDatetime),
    emailforgotpass_sent_datetime: formatOptionalDateTime(user.emailforgotpassSentDatetime),
    emailchangepass_sent_datetime: formatOptionalDateTime(user.emailchangepassSentDatetime),
  };
}

/**
 * Superuser locks (user-lock) remember the previous role; temporary lock-outs do not
 * (docs/design.md#lock-out-and-login-back-off).
 */
export function isLockedBySuperuser(user: UserRecord): boolean {
  return user.previousRole !== null;
}
