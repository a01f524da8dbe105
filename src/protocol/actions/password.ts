import { Type } from '@sinclair/typebox';
import { Id, LIMITS, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { Password } from '../items.js';
import { USER_RATE } from '../rate-class.js';

const SessionToken = Text(LIMITS.token, { description: 'the session token' });
const Email = Text(LIMITS.email, { description: "the user's email" });
const FullName = Text(LIMITS.fullName, { description: "the user's full name (the new password must not resemble it)" });
const Changed = Type.Object({ user_id: NullOnFailure(Type.Integer()), email: NullOnFailure(Type.String()) });

export const passwordActions = {
  'user-validatepass': {
    summary:
      "Checks a password against the password policy (length, common passwords, similarity to the server's name, " +
      'the email and the full name, character frequency, all digits, compromised passwords); messages explain a refusal.',
    changesState: false,
    rate: USER_RATE,
    failures: ['insecure_password'],
    input: Type.Object({
      password: Password('the password to check'),
      email: Text(LIMITS.email, { description: "the user's email (the password must not resemble it)" }),
      full_name: Text(LIMITS.fullName, { description: "the user's full name (the password must not resemble it)" }),
      min_pass_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024, description: 'default 12' })),
      max_unsafe_similarity: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 100, description: 'out of 100; default 30' }),
      ),
      max_character_frequency: Type.Optional(
        Type.Number({ exclusiveMinimum: 0, maximum: 1, description: "default: the server's passpolicy" }),
      ),
      min_pwned_matches: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: "default: the server's passpolicy" }),
      ),
    }),
    output: Type.Object({}),
  },
  'user-changepass': {
    summary:
      "Changes a user's password, with a valid session of that user and the current password; ends the user's other " +
      'sessions and revokes their no-session API keys.',
    changesState: true,
    padFailures: true,
    rate: USER_RATE,
    failures: [
      'session_not_found',
      'wrong_credentials',
      'temporarily_locked',
      'user_inactive',
      'password_unchanged',
      'insecure_password',
      'step_up_required',
    ],
    input: Type.Object({
      user_id: Id(),
      session_token: SessionToken,
      full_name: FullName,
      email: Email,
      current_password: Password('the current password'),
      new_password: Password('the new password'),
    }),
    output: Changed,
  },
  'user-changepass-nosession': {
    summary:
      "Changes a user's password with the current password; ends all the user's sessions and revokes their " +
      'no-session API keys.',
    changesState: true,
    padFailures: true,
    rate: USER_RATE,
    failures: [
      'wrong_credentials',
      'temporarily_locked',
      'user_inactive',
      'password_unchanged',
      'insecure_password',
      'step_up_required',
    ],
    input: Type.Object({
      user_id: Id(),
      full_name: FullName,
      email: Email,
      current_password: Password('the current password'),
      new_password: Password('the new password'),
    }),
    output: Changed,
  },
  'user-resetpass': {
    summary:
      'Replaces a forgotten password (the frontend has checked the emailed token), with any valid session; ends all ' +
      "the user's sessions and revokes their no-session API keys.",
    changesState: true,
    rate: USER_RATE,
    failures: ['session_not_found', 'user_not_found', 'password_unchanged', 'insecure_password'],
    input: Type.Object({
      email_address: Email,
      new_password: Password('the new password'),
      session_token: SessionToken,
    }),
    output: Type.Object({}),
  },
  'user-resetpass-nosession': {
    summary:
      "Replaces a forgotten password when the user's is_active equals required_active; ends all the user's sessions " +
      'and revokes their no-session API keys.',
    changesState: true,
    rate: USER_RATE,
    failures: ['required_active_mismatch', 'password_unchanged', 'insecure_password'],
    input: Type.Object({
      email_address: Email,
      new_password: Password('the new password'),
      required_active: Type.Boolean({ description: "the user's is_active must equal this" }),
    }),
    output: Type.Object({}),
  },
} as const satisfies Record<string, ActionSpec>;
