import { Type } from '@sinclair/typebox';
import { Id, JsonDict, NullOnFailure } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { Initiator, Password } from '../items.js';
import { INTERNAL_RATE, USER_RATE } from '../rate-class.js';
import { UserInfo } from '../user-info.js';

export const userEditActions = {
  'user-edit': {
    summary:
      'A user edits their own full_name and email; a superuser edits anyone’s, and also is_active and user_role ' +
      '(a role of the policy). The initiator’s session must be theirs and the role their stored one. Changing one’s ' +
      'own email needs the password (checked and counted like a login), and the new address is unverified until ' +
      'user-set-emailverified confirms it.',
    changesState: true,
    padFailures: true,
    rate: USER_RATE,
    failures: [
      'system_account',
      'forbidden_update_keys',
      'session_not_found',
      'session_mismatch',
      'role_mismatch',
      'role_not_in_policy',
      'caller_not_valid',
      'edit_not_permitted',
      'protected_account',
      'locked_via_user_lock',
      'role_change_not_valid',
      'user_not_found',
      'invalid_full_name',
      'invalid_email',
      'email_taken',
      'wrong_credentials',
      'temporarily_locked',
      'user_inactive',
      'step_up_required',
    ],
    input: Type.Object({
      ...Initiator,
      target_userid: Id({ description: 'the user to edit' }),
      update_dict: JsonDict({
        minProperties: 1,
        description: 'full_name, email; for superusers also is_active, user_role',
      }),
      password: Type.Optional(
        Password("the initiator's current password: required when they change their own email (extension)"),
      ),
    }),
    output: Type.Object({ user_info: NullOnFailure(UserInfo) }),
  },
  'internal-user-edit': {
    summary:
      'Edits any user’s full_name, email, email_verified, is_active, user_role or extra_info (merged; `__delete__` ' +
      'removes an item). Internal: checks no permissions, so end-user input must never reach it; accounts 2 and 3, ' +
      'and the role and activity of account 1, are never changed.',
    changesState: true,
    rate: INTERNAL_RATE,
    failures: [
      'system_account',
      'protected_account',
      'forbidden_update_keys',
      'user_not_found',
      'invalid_full_name',
      'invalid_email',
      'email_taken',
      'role_change_not_valid',
      'extra_info_too_large',
      'edit_conflict',
    ],
    input: Type.Object({
      target_userid: Id({ description: 'the user to edit' }),
      update_dict: JsonDict({ minProperties: 1 }),
    }),
    output: Type.Object({ user_info: NullOnFailure(UserInfo) }),
  },
} as const satisfies Record<string, ActionSpec>;
