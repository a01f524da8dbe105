import { Type } from '@sinclair/typebox';
import { Id, LIMITS, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { Password } from '../items.js';
import { USER_RATE } from '../rate-class.js';

const SessionToken = Text(LIMITS.token, { description: 'the session token' });
const Email = Text(LIMITS.email, { description: "the user's email (compared case-insensitively)" });
const Verified = Type.Object({
  user_id: NullOnFailure(Type.Integer({ description: 'null when the check failed' })),
  user_role: NullOnFailure(Type.String()),
  login_ticket: Type.Optional(
    Type.String({
      description:
        'with second_factor_required: the ticket for user-login-secondfactor; with ' +
        'second_factor_enrollment_required: the ticket for user-totp-new and user-totp-confirm (single use, 5 ' +
        'minutes, this session)',
    }),
  ),
  methods: Type.Optional(
    Type.Array(Type.String(), {
      description: 'with second_factor_required only: what the user can prove (totp, passkey, recovery)',
    }),
  ),
});

/** What a password check of a login may answer: the check's failures and the two asking for a second factor. */
const LOGIN_FAILURES = [
  'wrong_credentials',
  'temporarily_locked',
  'user_inactive',
  'second_factor_required',
  'second_factor_enrollment_required',
] as const;

export const loginActions = {
  'user-login': {
    summary:
      'Logs a user in with email and password. The presented session is always deleted (the frontend opens a new ' +
      'one); every failure gets the same end-user message, and failed attempts count towards the temporary lock.',
    changesState: true,
    rate: USER_RATE,
    failures: [...LOGIN_FAILURES, 'session_not_found'],
    padFailures: true,
    input: Type.Object({
      session_token: SessionToken,
      email: Email,
      password: Password('the password'),
    }),
    output: Verified,
  },
  'user-logout': {
    summary: "Logs a user out: deletes the session, which must be that user's.",
    changesState: true,
    rate: USER_RATE,
    failures: ['session_not_found', 'session_user_mismatch'],
    input: Type.Object({ session_token: SessionToken, user_id: Id() }),
    output: Type.Object({ user_id: NullOnFailure(Type.Integer()) }),
  },
  'user-passcheck': {
    summary: "Checks the password of the session's user (the session is kept); failures count towards the lock.",
    changesState: true,
    rate: USER_RATE,
    failures: [...LOGIN_FAILURES, 'session_not_found'],
    padFailures: true,
    input: Type.Object({ session_token: SessionToken, password: Password('the password') }),
    output: Verified,
  },
  'user-passcheck-nosession': {
    summary: "Checks a user's email and password without a session; failures count towards the lock.",
    changesState: true,
    rate: USER_RATE,
    failures: LOGIN_FAILURES,
    padFailures: true,
    input: Type.Object({ email: Email, password: Password('the password') }),
    output: Verified,
  },
} as const satisfies Record<string, ActionSpec>;
