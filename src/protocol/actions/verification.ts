import { Type } from '@sinclair/typebox';
import { DateTimeOut, LIMITS, Nullable, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { USER_EMAIL_RATE, USER_RATE } from '../rate-class.js';

const Email = (description: string) => Text(LIMITS.email, { description });

export const verificationActions = {
  'user-set-emailverified': {
    summary:
      'Marks an unverified user verified, active and (when locked) authenticated; on anyone else it changes nothing ' +
      'and answers with the current values.',
    changesState: true,
    rate: USER_RATE,
    failures: ['user_not_found'],
    input: Type.Object({ email: Email('the verified email') }),
    output: Type.Object({
      user_id: NullOnFailure(Type.Integer()),
      user_role: NullOnFailure(Type.String()),
      is_active: NullOnFailure(Type.Boolean()),
      emailverify_sent_datetime: Nullable(DateTimeOut()),
    }),
  },
  'user-set-emailsent': {
    summary: 'Records that a sign-up or forgot-password email was sent by other means (now, by the server’s clock).',
    changesState: true,
    rate: USER_EMAIL_RATE,
    failures: ['user_not_found'],
    input: Type.Object({
      email: Email('the address the email went to'),
      email_type: Type.Unsafe<'signup' | 'forgotpass'>({
        type: 'string',
        enum: ['signup', 'forgotpass'],
        description: 'signup or forgotpass',
      }),
    }),
    output: Type.Object({
      user_id: NullOnFailure(Type.Integer()),
      email: NullOnFailure(Type.String()),
      user_role: NullOnFailure(Type.String()),
      is_active: NullOnFailure(Type.Boolean()),
      emailverify_sent_datetime: Nullable(DateTimeOut()),
      emailforgotpass_sent_datetime: Nullable(DateTimeOut()),
    }),
  },
} as const satisfies Record<string, ActionSpec>;
