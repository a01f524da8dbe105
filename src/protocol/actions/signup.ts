import { Type } from '@sinclair/typebox';
import { JsonDict, LIMITS, Nullable, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { Password } from '../items.js';
import { USER_RATE } from '../rate-class.js';

export const signupActions = {
  'user-new': {
    summary:
      'Signs a user up: a new account is locked, inactive and unverified until user-set-emailverified. An address ' +
      'already signed up gets success false (failure_reason "user exists") with the same end-user messages.',
    changesState: true,
    rate: USER_RATE,
    failures: ['invalid_email', 'invalid_full_name', 'insecure_password', 'user_exists', 'system_id_taken'],
    input: Type.Object({
      full_name: Text(LIMITS.fullName, { description: "the user's full name" }),
      email: Text(LIMITS.email, { description: "the user's email" }),
      password: Password('the new password'),
      extra_info: Type.Optional(Nullable(JsonDict({ description: 'arbitrary user information' }))),
      verify_retry_wait: Type.Optional(
        Nullable(
          Type.Integer({
            minimum: 1,
            maximum: 8760,
            description:
              'hours before a repeated sign-up of an unverified address may send a new verification (default 6)',
          }),
        ),
      ),
      system_id: Type.Optional(
        Nullable(
          Text(LIMITS.systemId, {
            pattern: '^[A-Za-z0-9._:-]+$',
            description: 'the account id for outside use; a UUIDv4 when absent',
          }),
        ),
      ),
    }),
    output: Type.Object({
      user_email: NullOnFailure(Type.String()),
      user_id: NullOnFailure(Type.Integer()),
      system_id: NullOnFailure(Type.String()),
      send_verification: Type.Boolean({ description: 'true when the frontend should send a verification email' }),
    }),
  },
} as const satisfies Record<string, ActionSpec>;
