import { Type } from '@sinclair/typebox';
import { DateTimeOut, Id, LIMITS, Nullable, NullOnFailure, Text } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { USER_EMAIL_RATE } from '../rate-class.js';

/** Items both email actions take (docs/design.md#mail). */
const common = {
  email_address: Text(LIMITS.email, { description: 'the address to send to' }),
  session_token: Text(LIMITS.token, {
    description:
      "a valid session (the visitor's anonymous one will do): its IP address and user agent go into the mail",
  }),
  server_name: Text(200, { description: "the frontend's name, shown in the subject and the text" }),
  server_baseurl: Text(2048, { description: "the frontend's base URL (http or https)" }),
  verification_token: Text(2048, {
    pattern: '^\\S+$',
    description: 'the time-stamped token made by the frontend; sent whole, on one line',
  }),
  verification_expiry: Type.Integer({
    minimum: 1,
    maximum: 31_536_000,
    description: 'seconds until the token expires (the mail shows the expiry time)',
  }),
};

/** Every refusal; the mail ones name the SMTP failure class. */
const REFUSALS = [
  'email_header_refused',
  'email_link_refused',
  'session_not_found',
  'email_ineligible',
  'smtp_insecure_auth',
  'smtp_unreachable',
  'smtp_timeout',
  'smtp_tls',
  'smtp_auth',
  'smtp_rejected',
  'smtp_failed',
] as const;

const fragment = (what: string) =>
  Text(2048, { description: `URL fragment (path) of the frontend's ${what} endpoint, joined to server_baseurl` });

/** What both answer: on a refusal every item is null. */
const sent = {
  user_id: NullOnFailure(Type.Integer()),
  email_address: NullOnFailure(Type.String({ description: 'the address as stored' })),
};

export const emailActions = {
  'user-sendemail-signup': {
    summary:
      'Sends the sign-up verification email when created_info.send_verification is true and the account is still ' +
      'unverified; records and returns the send time. Every refusal answers success false with null items and the ' +
      'same end-user message; only failure_reason differs.',
    changesState: true,
    rate: USER_EMAIL_RATE,
    failures: REFUSALS,
    input: Type.Object({
      ...common,
      created_info: Type.Object(
        {
          send_verification: Type.Boolean({ description: 'from the user-new reply' }),
          user_id: Nullable(Id({ description: 'from the user-new reply: must be the account of email_address' })),
        },
        { description: 'the user-new reply (its other items are ignored)' },
      ),
      account_verify_url: fragment('account verification'),
    }),
    output: Type.Object({ ...sent, emailverify_sent_datetime: NullOnFailure(DateTimeOut()) }),
  },
  'user-sendemail-forgotpass': {
    summary:
      'Sends the forgot-password email to an active, verified account, at most one per 24 hours (two requests at ' +
      'once send one); records and returns the send time. A successful password reset opens the window again. A ' +
      'created_info sent anyway is ignored. Refusals look like user-sendemail-signup.',
    changesState: true,
    rate: USER_EMAIL_RATE,
    failures: [...REFUSALS, 'email_window'],
    input: Type.Object({ ...common, password_forgot_url: fragment('forgot-password') }),
    output: Type.Object({ ...sent, emailforgotpass_sent_datetime: NullOnFailure(DateTimeOut()) }),
  },
} as const satisfies Record<string, ActionSpec>;
