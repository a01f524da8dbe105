/**
 * user-lock (docs/design.md#superuser-lock-and-what-ends-with-it): superusers only, never on oneself nor on accounts 2
 * and 3.
 * - `lock`: role `locked`, inactive, the previous role remembered (`previous_role`), and every session
 *   (with its session-tied keys), no-session key and refresh token of the user deleted. Locking a
 *   locked account changes nothing but still ends whatever is left.
 * - `unlock`: the previous role back; active again only if the email was verified and the account was
 *   not already locked before (a never-verified sign-up stays as it was). Unlocking an account that no
 *   superuser locked changes nothing.
 * Both answer success with the user info and `locked`; the temporary lock-out after failed logins
 * (docs/design.md#lock-out-and-login-back-off) is a different thing and is left alone.
 */
import { isLockedBySuperuser, userInfo } from '../accounts/user-info.js';
import { fail, ok } from '../domain/result.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import type { userLockActions } from '../protocol/actions/user-lock.js';
import { checkSuperuserOver, initiatorMessages } from '../accounts/initiator.js';

const NOT_AVAILABLE = 'Superuser session info not available for this lock/unlock attempt.';

const userLock = defineAction('user-lock', {
  messages: {
    ok: 'User lock toggle successful.',
    failures: {
      not_superuser: "You don't have lock/unlock privileges.",
      self_lock: "You can't lock/unlock your own user account.",
      system_account: "The system accounts can't be locked or unlocked.",
      ...initiatorMessages(NOT_AVAILABLE),
      user_not_found: 'User lock toggle failed.',
    },
  },
  async handle(deps, input, meta) {
    const none = { user_info: null, locked: null };
    const target = input.target_userid;
    const allowed = await checkSuperuserOver(deps, input, target);
    if (!allowed.ok) return fail(allowed.code, none);

    const now = deps.clock.now();
    const outcome =
      input.action === 'lock' ? await deps.store.users.lock(target, now) : await deps.store.users.unlock(target, now);
    if (outcome === null) return fail('user_not_found', none);
    const audited = { changed: outcome.changed, role: outcome.user.userRole };
    deps.audit.record(
      input.action === 'lock'
        ? {
            event: 'user.locked',
            reqid: meta.reqid,
            subject: { userId: target },
            detail: { ...audited, ended_sessions: outcome.endedSessions },
          }
        : { event: 'user.unlocked', reqid: meta.reqid, subject: { userId: target }, detail: audited },
    );
    return ok({ user_info: userInfo(outcome.user), locked: isLockedBySuperuser(outcome.user) });
  },
});

export const userLockHandlers = {
  'user-lock': userLock,
} satisfies FamilyHandlers<typeof userLockActions>;
