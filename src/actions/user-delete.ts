/**
 * user-delete. The user must match both user_id and email. The password proves it is theirs, unless
 * `session_token` is an unexpired session of an active superuser; it goes through the one credential
 * check (docs/design.md#one-credential-check): counted, backed off, refused while locked, one
 * message and one cost on every failing path, so neither the time nor the text tells whether an
 * account exists. Superusers (account 1 among them) and the system
 * accounts 2 and 3 are never deleted; the superuser check comes after the password, so it reveals a
 * role only to whoever already proved the account is theirs. Sessions and keys go with the user
 * (foreign keys, ON DELETE CASCADE).
 */
import { normaliseEmail } from '../protocol/index.js';
import { fail, invalid, ok } from '../domain/result.js';
import { ANONYMOUS_ID, DUMMY_ID, SUPERUSER_ID } from '../domain/fixed-accounts.js';
import { checkCredentials } from '../accounts/credentials.js';
import { STEP_UP, stepUpFresh } from '../accounts/second-step.js';
import { hashToken } from '../domain/tokens.js';
import { defineAction } from './define.js';
import type { FamilyHandlers } from './define.js';
import type { userDeleteActions } from '../protocol/actions/user-delete.js';
import type { UserRecord } from '../services/store/index.js';
import { isSuperuserSession } from '../accounts/initiator.js';

const NOT_VERIFIED = 'We could not verify your email address or password.';

const userDelete = defineAction('user-delete', {
  messages: {
    ok: 'User successfully deleted from DB.',
    failures: {
      system_account: "The system accounts can't be deleted.",
      cannot_delete_superuser: "Can't delete superusers.",
      user_not_found: NOT_VERIFIED,
      wrong_credentials: NOT_VERIFIED,
      temporarily_locked: NOT_VERIFIED,
      user_inactive: NOT_VERIFIED,
      step_up_required: STEP_UP,
    },
  },
  async handle(deps, input, meta) {
    const none = { user_id: null, email: null };
    if (input.user_id === SUPERUSER_ID) return fail('cannot_delete_superuser', none);
    if (input.user_id === ANONYMOUS_ID || input.user_id === DUMMY_ID) return fail('system_account', none);
    const email = normaliseEmail(input.email);
    const bySuperuser = input.session_token !== undefined && (await isSuperuserSession(deps, input.session_token));
    let found: UserRecord | null;
    if (bySuperuser) {
      found = (await deps.store.users.credentialsById(input.user_id, email))?.user ?? null;
    } else if (input.password === undefined) {
      return invalid([{ param: 'password', problem: 'missing', required_type: 'str' }], none);
    } else {
      const check = await checkCredentials(deps, { userId: input.user_id, email }, input.password, meta);
      if (!check.ok) return fail(check.code, none);
      // With a second factor, session_token must be the user's, with a factor proved lately (docs/design.md#step-up).
      const sessionHash = input.session_token === undefined ? null : hashToken(input.session_token);
      if (check.factors !== null && !(await stepUpFresh(deps, input.user_id, sessionHash)))
        return fail('step_up_required', none);
      found = check.user;
    }
    if (found === null) return fail('user_not_found', none);
    if (found.userRole === 'superuser') return fail('cannot_delete_superuser', none);
    // The statement re-checks the role, so a promotion that raced this request still protects the user.
    if (!(await deps.store.users.remove(input.user_id, email))) return fail('user_not_found', none);
    deps.audit.record({
      event: 'user.deleted',
      reqid: meta.reqid,
      subject: { userId: input.user_id },
      detail: { by_superuser: bySuperuser },
    });
    return ok({ user_id: input.user_id, email });
  },
});

export const userDeleteHandlers = {
  'user-delete': userDelete,
} satisfies FamilyHandlers<typeof userDeleteActions>;
