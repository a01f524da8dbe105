import { Type } from '@sinclair/typebox';
import { Id, LIMITS, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { USER_RATE } from '../rate-class.js';

export const userDeleteActions = {
  'user-delete': {
    summary:
      'Deletes a user matching both user_id and email, with their sessions and keys. The password (of an active account, ' +
      'checked and counted like a login) is needed unless session_token is a superuser’s session; superusers and accounts 1–3 cannot be deleted.',
    changesState: true,
    padFailures: true,
    rate: USER_RATE,
    failures: [
      'system_account',
      'cannot_delete_superuser',
      'user_not_found',
      'wrong_credentials',
      'temporarily_locked',
      'user_inactive',
      'step_up_required',
    ],
    input: Type.Object({
      email: Text(LIMITS.email, { description: 'the email of the user to delete' }),
      user_id: Id({ description: 'the user to delete' }),
      password: Type.Optional(Text(LIMITS.passwordWire, { description: "the user's password" })),
      session_token: Type.Optional(
        Text(LIMITS.token, {
          description:
            'a superuser’s session: then the password may be omitted (extension); for a user with a second factor, ' +
            'their own session, which proved it within stepupwindow',
        }),
      ),
    }),
    output: Type.Object({ user_id: NullOnFailure(Type.Integer()), email: NullOnFailure(Type.String()) }),
  },
} as const satisfies Record<string, ActionSpec>;
