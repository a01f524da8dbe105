/**
 * user-set-emailverified (docs/design.md#fixed-accounts-and-new-users) and user-set-emailsent. The frontend checked the
 * verification token; we only record the outcome.
 * - set-emailverified acts only on an unverified user that no superuser has locked: verified, active,
 *   and role `authenticated` if it was `locked` (the role of every new sign-up). On anyone else it
 *   changes nothing and answers success with the current values, so it never re-activates an account
 *   a superuser locked. One conditional statement: two verifications at once change the row once.
 * - set-emailsent records the send time from the injected clock.
 */
import { fail, ok } from '../domain/result.js';
import { formatOptionalDateTime, normaliseEmail } from '../protocol/index.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import type { verificationActions } from '../protocol/actions/verification.js';

const userSetEmailverified = defineAction('user-set-emailverified', {
  messages: {
    ok: 'Email verification toggle request succeeded.',
    failures: { user_not_found: 'Email verification toggle request failed.' },
  },
  async handle(deps, input, meta) {
    const email = normaliseEmail(input.email);
    const changed = await deps.store.users.markVerified(email, deps.clock.now());
    const user = await deps.store.users.byEmail(email);
    if (user === null) {
      return fail('user_not_found', {
        user_id: null,
        user_role: null,
        is_active: null,
        emailverify_sent_datetime: null,
      });
    }
    if (changed) deps.audit.record({ event: 'email.verified', reqid: meta.reqid, subject: { userId: user.userId } });
    return ok({
      user_id: user.userId,
      user_role: user.userRole,
      is_active: user.isActive,
      emailverify_sent_datetime: formatOptionalDateTime(user.emailverifySentDatetime),
    });
  },
});

const userSetEmailsent = defineAction('user-set-emailsent', {
  messages: {
    ok: 'Email sent notification request succeeded.',
    failures: { user_not_found: 'Email sent notification request failed.' },
  },
  async handle(deps, input) {
    const email = normaliseEmail(input.email);
    const found = await deps.store.users.markEmailSent(email, input.email_type, deps.clock.now());
    const user = found ? await deps.store.users.byEmail(email) : null;
    if (user === null) {
      return fail('user_not_found', {
        user_id: null,
        email: null,
        user_role: null,
        is_active: null,
        emailverify_sent_datetime: null,
        emailforgotpass_sent_datetime: null,
      });
    }
    return ok({
      user_id: user.userId,
      email: user.email,
      user_role: user.userRole,
      is_active: user.isActive,
      emailverify_sent_datetime: formatOptionalDateTime(user.emailverifySentDatetime),
      emailforgotpass_sent_datetime: formatOptionalDateTime(user.emailforgotpassSentDatetime),
    });
  },
});

export const verificationHandlers = {
  'user-set-emailverified': userSetEmailverified,
  'user-set-emailsent': userSetEmailsent,
} satisfies FamilyHandlers<typeof verificationActions>;
