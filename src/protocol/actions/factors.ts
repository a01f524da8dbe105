import { Type } from '@sinclair/typebox';
import { DateTimeOut, Id, JsonDict, LIMITS, NullOnFailure, Nullable, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { INITIATOR_FAILURES, Initiator } from '../items.js';
import { USER_RATE } from '../rate-class.js';

export const SessionToken = Text(LIMITS.token, { description: "the user's session token" });
export const UserId = Id({ description: 'the user (the session must be theirs)' });
const FactorId = Text(64, { description: 'the factor, as user-factor-list or user-totp-new named it' });
/** The ticket of second_factor_enrollment_required, in place of user_id: the session is the login's. */
export const EnrolTicket = Text(LIMITS.token, {
  description:
    'instead of user_id, for a user whose role must have a second factor: the ticket user-login answered with ' +
    'second_factor_enrollment_required, and session_token the session given to user-login',
});
export const FactorName = Text(LIMITS.fullName, { description: 'a name for the user to tell their factors apart' });
/** A TOTP code or a recovery code, as the user typed it. */
const Code = Text(64, { description: 'a 6-digit code of the authenticator app, or a recovery code' });
const Method = Type.Union([Type.Literal('totp'), Type.Literal('recovery'), Type.Literal('passkey')], {
  description:
    'totp: a code of the authenticator app; recovery: one of the recovery codes; passkey: the browser’s answer to ' +
    'user-passkey-options (purpose secondfactor or stepup)',
});
/** What navigator.credentials.create() or .get() gave the page, as JSON (the credential's toJSON()). */
export const PasskeyResponse = JsonDict({
  description:
    'the PublicKeyCredential the browser returned, as JSON (PublicKeyCredential.toJSON(), or @simplewebauthn/browser)',
});
/** The proof of a second step: a code for totp and recovery, a passkey response for passkey. */
const Proof = {
  method: Method,
  code: Type.Optional(Code),
  response: Type.Optional(PasskeyResponse),
};
export const RecoveryCodes = Type.Array(Type.String(), {
  description: 'the recovery codes, shown this once: each logs in once in place of a code',
});

/**
 * What adding an active factor answers: its id and, for the first one, the recovery codes; with an enrolment ticket,
 * also what user-login answers, since the login is done.
 */
export const FactorAdded = Type.Object({
  factor_id: NullOnFailure(Type.String()),
  recovery_codes: Type.Optional(RecoveryCodes),
  user_id: Type.Optional(Type.Integer({ description: 'with login_ticket: the login is done, as user-login answers' })),
  user_role: Type.Optional(Type.String({ description: 'with login_ticket: as user-login answers' })),
});

const Factor = Type.Object({
  factor_id: Type.String(),
  kind: Type.Union([Type.Literal('totp'), Type.Literal('passkey')]),
  name: Type.String(),
  active: Type.Boolean({ description: 'false for a TOTP factor waiting for user-totp-confirm' }),
  created: DateTimeOut(),
  last_used: Nullable(DateTimeOut()),
});

/** What a successful second step answers: what a successful user-login answers. */
export const Verified = Type.Object({
  user_id: NullOnFailure(Type.Integer({ description: 'null when the check failed' })),
  user_role: NullOnFailure(Type.String()),
});

/** The actions that need a fresh second factor on their session (docs/design.md#step-up) also list this failure. */
export const factorActions = {
  'user-factor-list': {
    summary: "Lists the user's second factors (pending ones included) and how many recovery codes are left.",
    changesState: false,
    rate: USER_RATE,
    failures: ['session_not_found', 'session_user_mismatch'],
    input: Type.Object({ user_id: UserId, session_token: SessionToken }),
    output: Type.Object({
      factors: NullOnFailure(Type.Array(Factor)),
      recovery_codes_left: NullOnFailure(Type.Integer()),
    }),
  },
  'user-totp-new': {
    summary:
      'Starts adding an authenticator app: a pending TOTP factor with its secret, otpauth:// URI and QR code (SVG). ' +
      'It works only after user-totp-confirm; a newer pending one replaces it. Needs a fresh second factor when the ' +
      'user already has one. With login_ticket instead of user_id: the first factor of a login that answered ' +
      'second_factor_enrollment_required.',
    changesState: true,
    rate: USER_RATE,
    failures: [
      'session_not_found',
      'session_user_mismatch',
      'step_up_required',
      'factor_limit',
      'login_ticket_invalid',
    ],
    input: Type.Object({
      user_id: Type.Optional(UserId),
      session_token: SessionToken,
      login_ticket: Type.Optional(EnrolTicket),
      name: FactorName,
    }),
    output: Type.Object({
      factor_id: NullOnFailure(Type.String()),
      secret: NullOnFailure(Type.String({ description: 'base32, for typing into the app' })),
      otpauth_uri: NullOnFailure(Type.String()),
      qr_svg: NullOnFailure(Type.String({ description: 'the otpauth:// URI as a QR code, an SVG document' })),
    }),
  },
  'user-totp-confirm': {
    summary:
      "Activates a pending TOTP factor with a code of the app. The user's first active factor also answers 10 " +
      'recovery codes, shown this once. With login_ticket: also finishes that login, answering what user-login ' +
      'answers (and ending its session).',
    changesState: true,
    rate: USER_RATE,
    failures: [
      'session_not_found',
      'session_user_mismatch',
      'factor_not_found',
      'second_factor_wrong',
      'login_ticket_invalid',
    ],
    input: Type.Object({
      user_id: Type.Optional(UserId),
      session_token: SessionToken,
      login_ticket: Type.Optional(EnrolTicket),
      factor_id: FactorId,
      code: Code,
    }),
    output: FactorAdded,
  },
  'user-login-secondfactor': {
    summary:
      'The second step of a login (or of user-passcheck, user-passcheck-nosession) that answered ' +
      'second_factor_required: the ticket it gave, with a code. Answers what the first step would have answered ' +
      'without a second factor; user-login’s presented session then ends. A wrong code counts like a wrong password; ' +
      'a ticket dies after 5 wrong codes, after 5 minutes, and once used.',
    changesState: true,
    padFailures: true,
    rate: USER_RATE,
    failures: ['session_not_found', 'login_ticket_invalid', 'second_factor_wrong', 'temporarily_locked'],
    input: Type.Object({
      session_token: Text(LIMITS.token, { description: 'the session the first step was given' }),
      login_ticket: Text(LIMITS.token, { description: 'the ticket the first step answered' }),
      ...Proof,
    }),
    output: Verified,
  },
  'user-stepup': {
    summary:
      'Proves a second factor on a session of the user, which then may, for stepupwindow seconds, change the ' +
      'password or email, delete the account, manage factors and recovery codes, and create API keys.',
    changesState: true,
    padFailures: true,
    rate: USER_RATE,
    failures: [
      'session_not_found',
      'session_user_mismatch',
      'no_second_factor',
      'second_factor_wrong',
      'temporarily_locked',
    ],
    input: Type.Object({ user_id: UserId, session_token: SessionToken, ...Proof }),
    output: Type.Object({ stepped_up_until: NullOnFailure(DateTimeOut()) }),
  },
  'user-factor-delete': {
    summary:
      'Removes one of the user’s factors (needs a fresh second factor); removing the last active one also removes ' +
      'the recovery codes. Like every revocation, it ends the user’s API keys and refresh tokens and other sessions.',
    changesState: true,
    rate: USER_RATE,
    failures: ['session_not_found', 'session_user_mismatch', 'step_up_required', 'factor_not_found'],
    input: Type.Object({ user_id: UserId, session_token: SessionToken, factor_id: FactorId }),
    output: Type.Object({ factor_id: NullOnFailure(Type.String()) }),
  },
  'user-recoverycodes-new': {
    summary: 'Replaces the user’s recovery codes with 10 new ones, shown this once (needs a fresh second factor).',
    changesState: true,
    rate: USER_RATE,
    failures: ['session_not_found', 'session_user_mismatch', 'no_second_factor', 'step_up_required'],
    input: Type.Object({ user_id: UserId, session_token: SessionToken }),
    output: Type.Object({ recovery_codes: NullOnFailure(RecoveryCodes) }),
  },
  'user-factors-reset': {
    summary:
      'A superuser removes every second factor and recovery code of another user (who lost their device): a ' +
      'revocation that also ends all their sessions, API keys, refresh tokens and login tickets.',
    changesState: true,
    rate: USER_RATE,
    failures: ['not_superuser', 'self_lock', 'system_account', ...INITIATOR_FAILURES, 'user_not_found'],
    input: Type.Object({ ...Initiator, target_userid: Id({ description: 'the user whose factors go' }) }),
    output: Type.Object({ removed_factors: NullOnFailure(Type.Integer()) }),
  },
} as const satisfies Record<string, ActionSpec>;
