/**
 * user-edit (spec; DESIGN decision 13): a user edits their own full_name and email; a superuser edits
 * anyone's, and also is_active and user_role. Checks, in order, so that a refusal never writes:
 * 1. the target is not a system account (2, 3);
 * 2. update_dict holds only those four items, each of its type;
 * 3. the initiator (initiator.ts): their session, their stored role, active;
 * 4. permission: non-superusers edit only themselves and only full_name and email;
 * 5. role and activity: never of account 1 nor of oneself (no superuser can lock themselves out or
 *    demote the first account); never to or from the role `locked` (that is user-lock's job: it
 *    remembers the previous role and ends sessions); a role must be one of the policy;
 * 6. values: the name normalised and free of links, the email normalised, valid and unique.
 */
import { editedEmail, editedFullName, parseUpdate } from '../accounts/user-edits.js';
import type { EditableKey } from '../accounts/user-edits.js';
import { userInfo } from '../accounts/user-info.js';
import { fail, invalid, ok } from '../domain/result.js';
import { ANONYMOUS_ID, DUMMY_ID, SUPERUSER_ID } from '../domain/fixed-accounts.js';
import type { UserChanges } from '../store/user-admin.js';
import { defineAction } from './define.js';
import { checkInitiator } from './initiator.js';

const SELF_EDITABLE: ReadonlySet<EditableKey> = new Set(['full_name', 'email']);
const SUPERUSER_EDITABLE: ReadonlySet<EditableKey> = new Set(['full_name', 'email', 'is_active', 'user_role']);

const NOT_AVAILABLE = 'User session info not available for this user edit attempt.';
const UPDATE_FAILED = 'User update failed.';

export const userEdit = defineAction<
  'user-edit',
  | 'system_account'
  | 'forbidden_update_keys'
  | 'session_not_found'
  | 'session_mismatch'
  | 'role_mismatch'
  | 'role_not_in_policy'
  | 'caller_not_valid'
  | 'edit_not_permitted'
  | 'protected_account'
  | 'locked_via_user_lock'
  | 'role_change_not_valid'
  | 'user_not_found'
  | 'invalid_full_name'
  | 'invalid_email'
  | 'email_taken'
>({
  name: 'user-edit',
  messages: {
    ok: 'User update successful.',
    failures: {
      system_account: 'Editing anonymous/locked user accounts not allowed.',
      forbidden_update_keys: 'extra elements in update_dict not allowed',
      session_not_found: NOT_AVAILABLE,
      session_mismatch: NOT_AVAILABLE,
      role_mismatch: NOT_AVAILABLE,
      role_not_in_policy: NOT_AVAILABLE,
      caller_not_valid: NOT_AVAILABLE,
      edit_not_permitted: "You don't have permission to make this change.",
      protected_account: "You don't have permission to make this change.",
      locked_via_user_lock: 'Locked accounts are changed with lock/unlock.',
      role_change_not_valid: 'unknown role change request in update_dict',
      user_not_found: UPDATE_FAILED,
      invalid_full_name: 'The full name provided is not valid: it must not be empty or contain a link.',
      invalid_email: "The email address provided doesn't seem to be a valid email address.",
      email_taken: "That email address can't be used for this account.",
    },
  },
  async handle(deps, input, meta) {
    const none = { user_info: null };
    const target = input.target_userid;
    if (target === ANONYMOUS_ID || target === DUMMY_ID) return fail('system_account', none);

    const parsed = parseUpdate(input.update_dict, SUPERUSER_EDITABLE);
    if (!parsed.ok) return parsed.code === 'invalid_params' ? invalid(parsed.problems, none) : fail(parsed.code, none);
    const { update, keys } = parsed;

    const initiator = await checkInitiator(deps, input);
    if (!initiator.ok) return fail(initiator.code, none);
    const superuser = initiator.user.userRole === 'superuser';
    if (!superuser && (target !== input.user_id || [...keys].some((key) => !SELF_EDITABLE.has(key)))) {
      return fail('edit_not_permitted', none);
    }

    const standing = update.isActive !== undefined || update.userRole !== undefined;
    if (standing && (target === SUPERUSER_ID || target === input.user_id)) return fail('protected_account', none);
    const current = target === input.user_id ? initiator.user : await deps.store.users.byId(target);
    if (current === null) return fail('user_not_found', none);
    if (standing && (current.userRole === 'locked' || update.userRole === 'locked')) {
      return fail('locked_via_user_lock', none);
    }
    if (update.userRole !== undefined && !deps.policy.current().roles.has(update.userRole)) {
      return fail('role_change_not_valid', none);
    }

    const changes: { -readonly [K in keyof UserChanges]: UserChanges[K] } = {};
    if (update.fullName !== undefined) {
      const name = editedFullName(update.fullName, { refuseLinks: true });
      if (name === null) return fail('invalid_full_name', none);
      changes.fullName = name;
    }
    if (update.email !== undefined) {
      const email = editedEmail(update.email, current.email);
      if (email === null) return fail('invalid_email', none);
      changes.email = email;
    }
    if (update.isActive !== undefined) changes.isActive = update.isActive;
    if (update.userRole !== undefined) changes.userRole = update.userRole;

    const outcome = await deps.store.userAdmin.edit(target, changes, deps.clock.now());
    if (outcome === 'email_taken') return fail('email_taken', none);
    const edited = outcome === 'ok' ? await deps.store.users.byId(target) : null;
    if (edited === null) return fail('user_not_found', none);
    // Deactivation or a role change ends what the old standing opened, as user-lock does (decision 12).
    if (changes.isActive === false || (changes.userRole ?? current.userRole) !== current.userRole) {
      await deps.store.apiKeys.revokeForUser(target);
    }
    if (standing) {
      deps.audit.record({
        event: 'user-edit',
        reqid: meta.reqid,
        subject: { userId: target },
        detail: {
          ...(changes.userRole === undefined ? {} : { role: changes.userRole, previous_role: current.userRole }),
          ...(changes.isActive === undefined ? {} : { is_active: changes.isActive }),
        },
      });
    }
    return ok({ user_info: userInfo(edited) });
  },
});
