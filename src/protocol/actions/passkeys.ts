import { Type } from '@sinclair/typebox';
import { Id, JsonDict, LIMITS, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { USER_RATE } from '../rate-class.js';
import { EnrolTicket, FactorAdded, FactorName, PasskeyResponse, SessionToken, UserId, Verified } from './factors.js';

/**
 * Passkeys (docs/design.md#passkeys): a ceremony's options, registering a passkey, and a login with a passkey alone.
 * A passkey as a second step or a step-up is method `passkey` of user-login-secondfactor and user-stepup.
 */
export const passkeyActions = {
  'user-passkey-options': {
    summary:
      'Starts a passkey ceremony: the options to give navigator.credentials.create() (purpose register: a new ' +
      "passkey of the session's user, after a fresh second factor when they have one) or .get() (login: any " +
      'discoverable passkey, for user-login-passkey; secondfactor: with the login_ticket of second_factor_required; ' +
      'stepup: for user-stepup). Its challenge works once, for 5 minutes, on this session, in any process.',
    changesState: true,
    rate: USER_RATE,
    failures: [
      'passkeys_off',
      'session_not_found',
      'session_user_mismatch',
      'step_up_required',
      'factor_limit',
      'login_ticket_invalid',
      'no_second_factor',
    ],
    input: Type.Object({
      session_token: SessionToken,
      purpose: Type.Union(
        [Type.Literal('register'), Type.Literal('login'), Type.Literal('secondfactor'), Type.Literal('stepup')],
        { description: 'the ceremony the options are for' },
      ),
      user_id: Type.Optional(Id({ description: 'register and stepup: the user (the session must be theirs)' })),
      login_ticket: Type.Optional(
        Text(LIMITS.token, {
          description:
            'secondfactor: the ticket of second_factor_required; register, instead of user_id: the ticket of ' +
            'second_factor_enrollment_required, on the login’s session',
        }),
      ),
    }),
    output: Type.Object({
      options: NullOnFailure(
        JsonDict({ description: 'PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON' }),
      ),
    }),
  },
  'user-passkey-register': {
    summary:
      'Stores a passkey from the browser’s answer to user-passkey-options (purpose register) after verifying it ' +
      '(challenge, origin, relying party, signature; attestation none). The user’s first active factor also answers ' +
      '10 recovery codes, shown this once. With login_ticket instead of user_id (second_factor_enrollment_required): ' +
      'also finishes that login, answering what user-login answers (and ending its session).',
    changesState: true,
    rate: USER_RATE,
    failures: [
      'passkeys_off',
      'session_not_found',
      'session_user_mismatch',
      'step_up_required',
      'factor_limit',
      'passkey_invalid',
      'login_ticket_invalid',
    ],
    input: Type.Object({
      user_id: Type.Optional(UserId),
      session_token: SessionToken,
      login_ticket: Type.Optional(EnrolTicket),
      name: FactorName,
      response: PasskeyResponse,
    }),
    output: FactorAdded,
  },
  'user-login-passkey': {
    summary:
      'Logs in with a passkey alone: the browser’s answer to user-passkey-options (purpose login) from a ' +
      'discoverable passkey that verified the user. Answers what a successful user-login answers, and ends the ' +
      'presented session; a failure keeps it, for another try. A failure counts like a wrong password for the ' +
      'passkey’s user.',
    changesState: true,
    padFailures: true,
    rate: USER_RATE,
    failures: ['passkeys_off', 'session_not_found', 'passkey_invalid', 'temporarily_locked'],
    input: Type.Object({
      session_token: Text(LIMITS.token, { description: 'the session that asked for the options' }),
      response: PasskeyResponse,
    }),
    output: Verified,
  },
} as const satisfies Record<string, ActionSpec>;
